import { spawn } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UserError } from '../../src/errors.js';
import { SlackApi, type TierLimits } from '../../src/slack/api.js';
import { FakeSlack } from '../support/slack-stand-in.js';
import { ROOT } from '../helpers.js';
import { TEST_REDIS_URL, redisAnswers } from './harness.js';

// Several replicas' Web API calls paced together through the Redis they share (bottleneck
// clustering), against the stand-in of Slack. Needs a Redis: RAGASK_TEST_REDIS_URL, by default the
// one on 127.0.0.1:6379; skipped, saying so, where none answers.

const REDIS_URL = TEST_REDIS_URL;

const available = await redisAnswers(REDIS_URL);
if (!available)
  console.warn(`shared Slack limits: skipped, no Redis answers at ${REDIS_URL} (set RAGASK_TEST_REDIS_URL)`);

const SPACING_MS = 400;
const tiers: TierLimits = { postMessagePerChannelMs: SPACING_MS, tier3PerMinute: 1000, tier4PerMinute: 1000 };

let fake: FakeSlack;
beforeAll(async () => {
  fake = new FakeSlack();
  await fake.start();
});
afterAll(() => fake.stop());

/** Gaps between consecutive chat.postMessage calls to a channel, as the stand-in saw them. */
function gaps(channel: string): number[] {
  const at = fake
    .callsOf('chat.postMessage')
    .filter((c) => c.args.channel === channel)
    .map((c) => c.at)
    .sort((a, b) => a - b);
  return at.slice(1).map((t, i) => t - at[i]!);
}

async function burst(replicas: SlackApi[], channel: string): Promise<void> {
  await Promise.all(
    replicas.flatMap((api, r) => [0, 1, 2].map((i) => api.postMessage({ channel, text: `replica ${r} message ${i}` }))),
  );
}

describe.skipIf(!available)('Slack rate limits shared by replicas (Redis)', () => {
  it('spaces one channel across two replicas as one process would', async () => {
    const scope = `test-${process.pid}-${Date.now()}`;
    const replicas = [0, 1].map(
      () => new SlackApi({ token: 'xoxb-1-t', apiUrl: fake.apiUrl, tiers, shared: { redisUrl: REDIS_URL, scope } }),
    );
    await Promise.all(replicas.map((r) => r.ready()));
    await burst(replicas, 'CSHARED');
    const shared = gaps('CSHARED');
    expect(shared).toHaveLength(5);
    // every call waited for the one before it, whichever replica made it (half the spacing: margin for timers)
    for (const g of shared) expect(g).toBeGreaterThanOrEqual(SPACING_MS / 2);
    await Promise.all(replicas.map((r) => r.stop()));

    // the same two replicas pacing alone send their calls in pairs
    const alone = [0, 1].map(() => new SlackApi({ token: 'xoxb-1-t', apiUrl: fake.apiUrl, tiers }));
    await burst(alone, 'CALONE');
    expect(gaps('CALONE').filter((g) => g < SPACING_MS / 2).length).toBeGreaterThan(0);
    await Promise.all(alone.map((r) => r.stop()));
  }, 30_000);

  it('frees the slots a replica held when it died in the middle of its calls', async () => {
    const scope = `test-dead-${process.pid}-${Date.now()}`;
    // a replica in its own process fills every chat.update slot (4) with calls Slack never answers, and dies
    for (let i = 0; i < 4; i++) fake.hold('chat.update', (args) => args.channel === 'CDEAD');
    const script = `
      import { SlackApi } from ${JSON.stringify(path.join(ROOT, 'dist', 'slack', 'api.js'))};
      const api = new SlackApi({ token: 'xoxb-1-t', apiUrl: ${JSON.stringify(fake.apiUrl)}, shared: { redisUrl: ${JSON.stringify(REDIS_URL)}, scope: ${JSON.stringify(scope)} } });
      await api.ready();
      for (let i = 0; i < 4; i++) void api.update({ channel: 'CDEAD', ts: '1.' + i, text: 'held' }).catch(() => {});
      setInterval(() => {}, 1000);`;
    const dying = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: 'ignore' });
    await fake.waitFor(
      () => fake.held.filter((c) => c.args.channel === 'CDEAD').length === 4,
      20_000,
      'the dying replica holding every slot',
    );
    dying.kill('SIGKILL');
    // the survivor's update goes through once the dead replica's calls expire
    const survivor = new SlackApi({ token: 'xoxb-1-t', apiUrl: fake.apiUrl, shared: { redisUrl: REDIS_URL, scope } });
    await survivor.ready();
    await survivor.update({ channel: 'CLIVE', ts: '2.1', text: 'after the death' });
    expect(fake.callsOf('chat.update').filter((c) => c.args.channel === 'CLIVE' && c.result)).toHaveLength(1);
    await survivor.stop();
  }, 60_000);

  it('refuses to start, naming the setting, when the shared Redis does not answer', async () => {
    const api = new SlackApi({
      token: 'xoxb-1-t',
      apiUrl: fake.apiUrl,
      tiers,
      shared: { redisUrl: 'redis://:secret@127.0.0.1:1', scope: 'unreachable' },
    });
    const err = await api.ready().then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(UserError);
    expect((err as UserError).code).toBe('config');
    expect((err as Error).message).toMatch(/^RAGASK_REDIS_URL: cannot reach Redis at redis:\/\/127\.0\.0\.1:1 /);
    expect((err as Error).message).not.toContain('secret');
  }, 30_000);
});
