import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeSlack, deliver, eventBody, freePort } from '../support/slack-stand-in.js';
import { ROOT, ingestSample, tempDir } from '../helpers.js';
import { SECRET, blocksText } from './harness.js';

const dir = tempDir();
let fake: FakeSlack;
const children: ChildProcess[] = [];
/** What each served process wrote (its log lines): what the test waits on. */
const output = new Map<ChildProcess, string>();

/** `ragask serve` in HTTP mode, as its own process; resolves once it listens. */
function serve(port: number): Promise<ChildProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(ROOT, 'bin', 'ragask.js'), 'serve'], {
      env: {
        ...process.env,
        ...fake.serveEnv({ dataDir: dir, port, signingSecret: SECRET }),
        RAGASK_MODELS_DIR: path.join(ROOT, 'models'),
        RAGASK_THREADS: '1',
        RAGASK_LOG_LEVEL: 'info',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(child);
    output.set(child, '');
    const keep = (d: unknown) => output.set(child, output.get(child) + String(d));
    child.stdout.on('data', keep);
    let err = '';
    child.stderr.on('data', (d) => {
      keep(d);
      err += String(d);
      if (err.includes('ragask: serving Slack')) resolve(child);
    });
    child.on(
      'exit',
      (code, signal) => signal !== 'SIGKILL' && code !== 0 && reject(new Error(`serve exited ${code}: ${err}`)),
    );
  });
}

beforeAll(async () => {
  await ingestSample(dir);
  fake = new FakeSlack();
  await fake.start();
});
afterAll(async () => {
  for (const c of children) c.kill('SIGKILL');
  await fake.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('killed while answering', () => {
  it('answers the redelivered event once after a restart, in the message it had already posted', async () => {
    const port = await freePort();
    const { body } = eventBody(
      {
        type: 'app_mention',
        user: 'U1',
        text: '<@UBOT> How long must the PM-5 warm up?',
        ts: '6000.0001',
        channel: 'C1',
        event_ts: '6000.0001',
      },
      'EvCrash1',
    );
    // the answer's update hangs at "Slack", so the process is caught in the middle of answering
    fake.hold('chat.update', (args) => blocksText(args.blocks).includes('Confidence'));
    const first = await serve(port);
    await deliver(port, SECRET, body, 'application/json');
    await fake.waitFor(() => fake.held.length > 0, 30_000, 'the answer in flight');
    first.kill('SIGKILL');
    await new Promise((r) => first.once('exit', r));

    const second = await serve(port);
    await deliver(port, SECRET, body, 'application/json', {
      'x-slack-retry-num': '1',
      'x-slack-retry-reason': 'http_error',
    });
    const placeholder = fake.callsOf('chat.postMessage').find((c) => c.args.thread_ts === '6000.0001')!;
    const answered = await fake.waitFor(
      () =>
        fake
          .callsOf('chat.update')
          .find(
            (c) => c.result && c.args.ts === placeholder.result!.ts && blocksText(c.args.blocks).includes('Confidence'),
          ),
      30_000,
      'answer after restart',
    );
    // the delivered answer, not the placeholder (the answer itself is the engine's business)
    expect(String(answered.args.text)).not.toMatch(/Looking through/);
    // once: one placeholder, one delivered answer, and a third delivery changes nothing
    const duplicates = () => output.get(second)!.split('duplicate delivery ignored').length - 1;
    const before = duplicates();
    await deliver(port, SECRET, body, 'application/json', {
      'x-slack-retry-num': '2',
      'x-slack-retry-reason': 'http_error',
    });
    await fake.waitFor(() => (duplicates() > before ? true : null), 10_000, 'the third delivery taken as a duplicate');
    expect(fake.callsOf('chat.postMessage').filter((c) => c.args.thread_ts === '6000.0001')).toHaveLength(1);
    expect(
      fake.callsOf('chat.update').filter((c) => c.result && blocksText(c.args.blocks).includes('Confidence')),
    ).toHaveLength(1);
  }, 90_000);

  it('answers an event on the next start even when Slack never delivers it again', async () => {
    const port = await freePort();
    const { body } = eventBody(
      {
        type: 'app_mention',
        user: 'U2',
        text: '<@UBOT> How long must the PM-5 warm up?',
        ts: '6000.0002',
        channel: 'C2',
        event_ts: '6000.0002',
      },
      'EvCrash2',
    );
    fake.hold('chat.update', (args) => args.channel === 'C2' && blocksText(args.blocks).includes('Confidence'));
    const heldBefore = fake.held.length;
    const first = await serve(port);
    await deliver(port, SECRET, body, 'application/json');
    await fake.waitFor(() => fake.held.length > heldBefore, 30_000, 'the answer in flight');
    first.kill('SIGKILL');
    await new Promise((r) => first.once('exit', r));

    // no redelivery: the acknowledged event is only in the store
    await serve(port);
    const placeholder = fake.callsOf('chat.postMessage').find((c) => c.args.thread_ts === '6000.0002')!;
    const answered = await fake.waitFor(
      () =>
        fake
          .callsOf('chat.update')
          .find(
            (c) => c.result && c.args.ts === placeholder.result!.ts && blocksText(c.args.blocks).includes('Confidence'),
          ),
      30_000,
      'answer recovered at start',
    );
    // the delivered answer, not the placeholder (the answer itself is the engine's business)
    expect(String(answered.args.text)).not.toMatch(/Looking through/);
    expect(fake.callsOf('chat.postMessage').filter((c) => c.args.thread_ts === '6000.0002')).toHaveLength(1);
  }, 90_000);
});
