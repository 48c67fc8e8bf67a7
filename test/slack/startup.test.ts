import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeSlack, freePort } from '../support/slack-stand-in.js';
import { ROOT, tempDir } from '../helpers.js';
import { APP_TOKEN, SECRET } from './harness.js';

// `ragask serve` as its own process, at start-up and shutdown: bad credentials and an unreachable
// Slack API. The store is empty (serve only warns about that), so nothing here needs a corpus.
const dir = tempDir();
let fake: FakeSlack;
beforeAll(async () => {
  fake = new FakeSlack();
  await fake.start();
  await fake.startSocketMode();
});
afterAll(async () => {
  await fake.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

interface Run {
  code: number | null;
  err: string;
  ms: number;
}

/** Runs `ragask serve` with these settings; SIGTERM once `signalWhen` resolves, if given. */
function serve(
  env: Record<string, string>,
  signalWhen?: Promise<unknown>,
): Promise<Run & { signalledAtMs: number | null }> {
  return new Promise((resolve) => {
    const t0 = Date.now();
    const child = spawn(process.execPath, [path.join(ROOT, 'bin', 'ragask.js'), 'serve'], {
      env: { ...process.env, ...env, RAGASK_MODELS_DIR: path.join(ROOT, 'models'), RAGASK_THREADS: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let err = '';
    let signalledAt: number | null = null;
    child.stderr.on('data', (d) => (err += String(d)));
    const kill = setTimeout(() => child.kill('SIGKILL'), 60_000);
    void signalWhen?.then(() => {
      signalledAt = Date.now();
      child.kill('SIGTERM');
    });
    child.on('exit', (code) => {
      clearTimeout(kill);
      resolve({
        code,
        err,
        ms: Date.now() - t0,
        signalledAtMs: signalledAt === null ? null : Date.now() - signalledAt,
      });
    });
  });
}

/** stderr without the empty-store warning (a JSON log line). */
const ownLines = (err: string) => err.split('\n').filter((l) => l.startsWith('ragask:'));

describe('start-up with credentials Slack does not accept', () => {
  it('HTTP mode: a revoked bot token is one line naming SLACK_BOT_TOKEN and where to get one, exit 78', async () => {
    fake.fail('auth.test', 'token_revoked', 1);
    const r = await serve({ ...fake.serveEnv({ dataDir: dir, port: await freePort(), signingSecret: SECRET }) });
    expect(r.code).toBe(78);
    const lines = ownLines(r.err);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^ragask: SLACK_BOT_TOKEN: .*token_revoked.*api\.slack\.com\/apps/);
    expect(r.err).not.toMatch(/internal error|at .*\.js:\d+/);
  }, 70_000);

  it('Socket Mode: a bad app token is one line naming SLACK_APP_TOKEN, exit 78', async () => {
    fake.fail('apps.connections.open', 'invalid_auth', 50);
    const env = {
      ...fake.serveEnv({ dataDir: dir, port: 0, signingSecret: SECRET }),
      RAGASK_SLACK_MODE: 'socket',
      SLACK_APP_TOKEN: APP_TOKEN,
    };
    const r = await serve(env);
    expect(r.code).toBe(78);
    const lines = ownLines(r.err);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^ragask: SLACK_APP_TOKEN: .*invalid_auth.*connections:write/);
  }, 70_000);
});

describe('start-up with a shared Redis that does not answer', () => {
  it('is one line naming RAGASK_REDIS_URL, without its password, exit 78', async () => {
    const port = await freePort();
    const r = await serve({
      ...fake.serveEnv({ dataDir: dir, port: await freePort(), signingSecret: SECRET }),
      RAGASK_REDIS_URL: `redis://:hunter2@127.0.0.1:${port}`,
    });
    expect(r.code).toBe(78);
    const lines = ownLines(r.err);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      new RegExp(`^ragask: RAGASK_REDIS_URL: cannot reach Redis at redis://127\\.0\\.0\\.1:${port} `),
    );
    expect(r.err).not.toContain('hunter2');
  }, 70_000);
});

describe('shutdown', () => {
  it("stops within the drain time on SIGTERM while Slack's API does not answer at start", async () => {
    // a server that accepts connections and never replies
    const sockets: net.Socket[] = [];
    let called: () => void = () => undefined;
    const firstCall = new Promise<void>((r) => (called = r));
    const silent = net.createServer((s) => {
      sockets.push(s);
      called();
    });
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(silent.address() as net.AddressInfo).port}/api/`;
    try {
      // the signal comes while serve waits for Slack's first answer (auth.test)
      const r = await serve(
        {
          ...fake.serveEnv({ dataDir: dir, port: await freePort(), signingSecret: SECRET }),
          RAGASK_SLACK_API_URL: url,
        },
        firstCall,
      );
      expect(r.signalledAtMs).not.toBeNull();
      // gone within the 10 s drain time (and a little for the process to end)
      expect(r.signalledAtMs!).toBeLessThan(12_000);
      expect(r.err).toMatch(/ragask: stopping/);
    } finally {
      for (const s of sockets) s.destroy();
      silent.close();
    }
  }, 70_000);
});
