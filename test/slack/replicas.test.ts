import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rng } from '../../src/eval/rng.js';
import { FakeSlack, actionBody, deliver, eventBody, freePort, type ApiCall } from '../support/slack-stand-in.js';
import { ROOT, SAMPLE_DIR, ingestSample, tempDir } from '../helpers.js';
import { BACKENDS, freshSchema, skipBackend } from '../pg.js';
import { SECRET, TEST_REDIS_URL, blocksText, redisAnswers } from './harness.js';
import { openSlackState } from '../../src/slack/state/open.js';

// Two real `ragask serve` processes sharing one store (and, where a Redis answers, their Slack rate
// limits), against the stand-in of Slack: events go to either at random, some are redelivered to
// the other, and one replica is killed in the middle of an answer. Every question is answered
// exactly once, and a button clicked through two replicas at once acts once. Run on each backend:
// the embedded SQLite file, and one PostgreSQL database (as replicas on several machines share it).

const dir = tempDir();
let fake: FakeSlack;
const children: ChildProcess[] = [];
/** Each replica's stderr, for the failure message. */
const logs: string[] = [];
const REDIS_URL = TEST_REDIS_URL;
let TOKEN = '';
/** Where the replicas' store is: RAGASK_DATA_DIR, or RAGASK_DATABASE_URL (PostgreSQL). */
let storeEnv: Record<string, string> = {};

/** A replica: `ragask serve` in HTTP mode on its own port; resolves once it listens. */
function replica(port: number, redis: boolean): Promise<ChildProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(ROOT, 'bin', 'ragask.js'), 'serve'], {
      env: {
        ...process.env,
        ...fake.serveEnv({ dataDir: dir, port, signingSecret: SECRET }),
        ...storeEnv,
        RAGASK_MODELS_DIR: path.join(ROOT, 'models'),
        RAGASK_THREADS: '1',
        RAGASK_ENGINE_WORKERS: '1',
        RAGASK_RECOVERY_SWEEP_S: '2',
        // every chain stops at its first check and asks: the button test below needs a stopped answer
        RAGASK_COHERENCE_THRESHOLD: '0.999',
        RAGASK_STOP_FOR_PERSON: 'always',
        // Slack's pacing is tested elsewhere (api, shared-limits); here every answer is an update
        RAGASK_SLACK_RATE_LIMITS: 'off',
        // this run's own limiter keys in the shared Redis (they are named after the token)
        SLACK_BOT_TOKEN: TOKEN,
        ...(redis ? { RAGASK_REDIS_URL: REDIS_URL } : {}),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(child);
    const me = logs.push('') - 1;
    let err = '';
    child.stderr!.on('data', (d) => {
      err += String(d);
      logs[me] = (logs[me] + String(d)).slice(-3000);
      if (err.includes('ragask: serving Slack')) resolve(child);
    });
    child.on(
      'exit',
      (code, signal) =>
        signal !== 'SIGKILL' && signal !== 'SIGTERM' && code !== 0 && reject(new Error(`serve exited ${code}: ${err}`)),
    );
  });
}

const isAnswer = (c: ApiCall) => blocksText(c.args.blocks).includes('Confidence');
/** The replicas' ports: a (killed in the first test), b, and c (started later). */
const ports: number[] = [];

/** `ragask <args>` on the replicas' store, as an operator would run it beside them. */
function cli(args: string[]): Promise<{ code: number | null; err: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [path.join(ROOT, 'bin', 'ragask.js'), ...args], {
      env: {
        ...process.env,
        RAGASK_DATA_DIR: dir,
        ...storeEnv,
        RAGASK_MODELS_DIR: path.join(ROOT, 'models'),
        RAGASK_THREADS: '1',
        RAGASK_LOG_LEVEL: 'warn',
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let err = '';
    child.stderr!.on('data', (d) => (err += String(d)));
    child.on('exit', (code) => resolve({ code, err }));
  });
}

afterAll(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

describe.each(BACKENDS)('several replicas on one store (%s)', (backend) => {
  const it_ = skipBackend(backend) ? it.skip : it;
  let dropSchema = async (): Promise<void> => undefined;
  beforeAll(async () => {
    if (skipBackend(backend)) return;
    TOKEN = `xoxb-1-replicas-${backend}-${process.pid}-${Date.now()}`;
    ports.length = 0;
    logs.length = 0;
    if (backend === 'postgres') {
      const s = await freshSchema('replicas');
      dropSchema = s.drop;
      storeEnv = { RAGASK_DATABASE_URL: s.url };
      await ingestSample(dir, { RAGASK_DATABASE_URL: s.url });
    } else {
      // the embedded store, whatever this shell's environment says
      storeEnv = { RAGASK_DATABASE_URL: '' };
      await ingestSample(dir);
    }
    fake = new FakeSlack();
    await fake.start();
  }, 120_000);
  afterAll(async () => {
    for (const c of children.splice(0)) c.kill('SIGKILL');
    await fake?.stop();
    await dropSchema();
  });

  it_(
    'answers every question exactly once, with redeliveries to the other replica and one replica killed mid-answer',
    async () => {
      const redis = await redisAnswers(REDIS_URL);
      ports.push(await freePort(), await freePort());
      const [a] = await Promise.all(ports.map((p) => replica(p, redis)));
      const questions = fs
        .readFileSync(path.join(SAMPLE_DIR, 'questions.jsonl'), 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => (JSON.parse(l) as { question: string }).question)
        .slice(0, 10);
      const rand = rng(7);
      // the first question goes to replica a, and its answer hangs at "Slack": a is killed then
      fake.hold('chat.update', (args) => args.channel === 'CR0' && blocksText(args.blocks).includes('Confidence'));
      const threads = questions.map((q, i) => {
        const ts = `7000.${String(i + 1).padStart(4, '0')}`;
        const { body } = eventBody(
          { type: 'app_mention', user: 'U1', text: `<@UBOT> ${q}`, ts, channel: `CR${i}`, event_ts: ts },
          `EvReplica${i}`,
        );
        return {
          ts,
          channel: `CR${i}`,
          body,
          to: i === 0 ? 0 : rand() < 0.5 ? 0 : 1,
          redeliver: i > 0 && rand() < 0.4,
        };
      });
      await Promise.all(
        threads.map(async (t) => {
          await deliver(ports[t.to]!, SECRET, t.body, 'application/json');
          // Slack's retry of the same event, to the other replica
          if (t.redeliver)
            await deliver(ports[1 - t.to]!, SECRET, t.body, 'application/json', {
              'x-slack-retry-num': '1',
              'x-slack-retry-reason': 'http_timeout',
            });
        }),
      );
      await fake.waitFor(() => fake.held.length > 0, 60_000, 'replica a in the middle of an answer');
      a!.kill('SIGKILL');
      await new Promise((r) => a!.once('exit', r));

      // the other replica answers what a left, in the message a had posted
      const answersIn = (t: (typeof threads)[number]) => {
        const placeholders = fake
          .callsOf('chat.postMessage')
          .filter((c) => c.args.thread_ts === t.ts && c.result && !isAnswer(c));
        const updates = fake
          .callsOf('chat.update')
          .filter((c) => c.result && isAnswer(c) && placeholders.some((p) => p.result!.ts === c.args.ts));
        const posted = fake
          .callsOf('chat.postMessage')
          .filter((c) => c.args.thread_ts === t.ts && c.result && isAnswer(c));
        // a person sees messages: a placeholder updated twice with the answer (its replica killed between
        // the update and the ledger's record of it, the other replica answering again) is one answer
        const messages = new Set([...updates.map((c) => c.args.ts), ...posted.map((c) => c.result!.ts)]);
        return { placeholders: placeholders.length, answers: messages.size };
      };
      await fake
        .waitFor(() => threads.every((t) => answersIn(t).answers >= 1), 90_000, 'every question answered')
        .catch((e: Error) => {
          throw new Error(
            `${e.message}\nunanswered: ${threads
              .filter((t) => answersIn(t).answers === 0)
              .map((t) => t.channel)
              .join(', ')}\n${logs.map((l, i) => `replica ${i}:\n${l}`).join('\n')}`,
          );
        });
      // every event answered in the shared ledger: no replica's sweep can take one up again
      const ledger = await openSlackState({ dataDir: dir, databaseUrl: storeEnv.RAGASK_DATABASE_URL ?? null }, 60_000);
      try {
        const statuses = () => Promise.all(threads.map((_, i) => ledger.events.eventStatus(`EvReplica${i}`)));
        await fake.waitFor(
          async () => ((await statuses()).every((s) => s === 'answered') ? true : null),
          30_000,
          'every event answered in the ledger',
        );
      } finally {
        await ledger.close();
      }
      for (const t of threads) expect(answersIn(t), t.channel).toEqual({ placeholders: 1, answers: 1 });
      // the killed replica's question was answered by the other one, in a's placeholder
      expect(fake.held).toHaveLength(1);

      // a "Continue with" button clicked at once through the surviving replica and a new one acts once
      ports.push(await freePort());
      await replica(ports[2]!, redis);
      const withButton = fake
        .callsOf('chat.update')
        .filter((u) => u.result && isAnswer(u))
        .map((u) => ({
          u,
          b: (u.args.blocks as { type: string; elements?: { action_id: string; value: string }[] }[])
            .flatMap((x) => x.elements ?? [])
            .find((e) => e.action_id === 'ragask_continue_0'),
        }))
        .find((x) => x.b);
      expect(withButton, 'an answer that stopped for a person').toBeDefined();
      const { u, b } = withButton!;
      const thread = threads.find((t) => t.channel === u.args.channel)!;
      const before = fake
        .callsOf('chat.update')
        .filter((x) => x.args.ts === u.args.ts && x.result && isAnswer(x)).length;
      const clickBody = actionBody({
        user: 'U1',
        channel: thread.channel,
        messageTs: String(u.args.ts),
        threadTs: thread.ts,
        actionId: b!.action_id,
        value: b!.value,
        responseUrl: fake.responseUrl(`click-${Date.now()}`),
      });
      await Promise.all(
        [ports[1]!, ports[2]!].map((p) => deliver(p, SECRET, clickBody, 'application/x-www-form-urlencoded')),
      );
      await fake.waitFor(
        () =>
          fake.callsOf('chat.update').filter((x) => x.args.ts === u.args.ts && x.result && isAnswer(x)).length > before,
        60_000,
        'the resumed answer',
      );
      // the other replica's click was handled too: it found the button used, and said so
      await fake.waitFor(
        () =>
          fake
            .callsOf('chat.postEphemeral')
            .find((c) => c.args.user === 'U1' && /already continued/.test(blocksText(c.args.blocks))),
        30_000,
        'the second click told',
      );
      expect(fake.callsOf('chat.update').filter((x) => x.args.ts === u.args.ts && x.result && isAnswer(x)).length).toBe(
        before + 1,
      );
    },
    300_000,
  );

  it_(
    'sees a document ingested beside it, and its new scope, at once in every replica',
    async () => {
      const docs = tempDir('ragask-replica-docs-');
      const file = path.join(docs, 'kestrel-radio.md');
      fs.writeFileSync(
        file,
        '# Project Kestrel radio\n\nThe Project Kestrel telemetry radio transmits on channel 42 of the Orbion band.\n',
      );
      try {
        expect((await cli(['ingest', docs])).code).toBe(0);
        const askBoth = async (channel: string, n: number) => {
          const answers: string[] = [];
          for (const port of [ports[1]!, ports[2]!]) {
            const ts = `7100.${String(n++).padStart(4, '0')}`;
            const { body } = eventBody({
              type: 'app_mention',
              user: 'U1',
              text: '<@UBOT> Which channel does the Project Kestrel telemetry radio transmit on?',
              ts,
              channel,
              event_ts: ts,
            });
            await deliver(port, SECRET, body, 'application/json');
            const placeholder = await fake.waitFor(
              () => fake.callsOf('chat.postMessage').find((c) => c.args.thread_ts === ts && c.result),
              60_000,
              'placeholder',
            );
            const answer = await fake.waitFor(
              () =>
                fake
                  .callsOf('chat.update')
                  .find((c) => c.result && c.args.ts === placeholder.result!.ts && isAnswer(c)),
              60_000,
              'answer',
            );
            answers.push(blocksText(answer.args.blocks));
          }
          return answers;
        };
        // both replicas (their engine workers included) cite the new document at once
        for (const a of await askBoth('CNEW', 1)) expect(a).toContain('Project Kestrel radio');
        // scoped to another channel: neither replica shows it here any more
        expect((await cli(['sources', 'set', file, '--scope', 'channel:COTHER'])).code).toBe(0);
        for (const a of await askBoth('CNEW', 3)) expect(a).not.toContain('Project Kestrel radio');
      } finally {
        fs.rmSync(docs, { recursive: true, force: true });
      }
    },
    240_000,
  );
});
