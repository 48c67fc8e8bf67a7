import fs from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { questionDelivery } from '../../src/slack/delivery.js';
import { deliver, eventBody } from '../support/slack-stand-in.js';
import { tempDir } from '../helpers.js';
import { SECRET, blocksText, startHarness, type Harness } from './harness.js';
import { FakeEngine } from './fake-engine.js';

const body = (event: Record<string, unknown>) => JSON.parse(eventBody(event, 'EvX').body) as unknown;

describe('which deliveries are persisted before the ack', () => {
  it('an @-mention, a DM and a reply in a thread may be questions; the bot, edits and channel chatter are not', () => {
    expect(
      questionDelivery(body({ type: 'app_mention', user: 'U1', text: '<@UBOT> hi', channel: 'C1', ts: '1' })),
    ).toEqual({ eventId: 'EvX', channel: 'C1' });
    expect(
      questionDelivery(body({ type: 'message', channel_type: 'im', user: 'U1', text: 'hi', channel: 'D1', ts: '1' })),
    ).not.toBeNull();
    expect(
      questionDelivery(
        body({
          type: 'message',
          channel_type: 'channel',
          user: 'U1',
          text: 'and -40?',
          channel: 'C1',
          ts: '2',
          thread_ts: '1',
        }),
      ),
    ).not.toBeNull();
    expect(
      questionDelivery(
        body({ type: 'message', channel_type: 'channel', user: 'U1', text: 'lunch?', channel: 'C1', ts: '2' }),
      ),
    ).toBeNull();
    expect(
      questionDelivery(
        body({
          type: 'message',
          channel_type: 'im',
          bot_id: 'B1',
          user: 'UBOT',
          text: 'answer',
          channel: 'D1',
          ts: '1',
        }),
      ),
    ).toBeNull();
    expect(
      questionDelivery(
        body({ type: 'message', subtype: 'message_changed', channel_type: 'im', channel: 'D1', ts: '1' }),
      ),
    ).toBeNull();
    expect(questionDelivery({ type: 'block_actions' })).toBeNull();
  });
});

describe('nothing acknowledged is lost (real Bolt over loopback)', () => {
  const open: Harness[] = [];
  const dirs: string[] = [];
  afterAll(async () => {
    for (const h of open) await h.close().catch(() => undefined);
    for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  });

  it('persists a mention before the ack, so a process that dies right after the ack leaves it for the next start to answer', async () => {
    const dir = tempDir();
    dirs.push(dir);
    const first = await startHarness({ engine: new FakeEngine(), dir });
    open.push(first);
    // the process "dies" between the ack and the work: the listener's work never starts
    first.slack.service.handleQuestion = () => new Promise<void>(() => undefined);
    const q = 'How long must the PM-5 warm up?';
    const { body: b, eventId } = eventBody({
      type: 'app_mention',
      user: 'U1',
      text: `<@UBOT> ${q}`,
      ts: '7000.0001',
      channel: 'C1',
      event_ts: '7000.0001',
    });
    const res = await deliver(first.port, SECRET, b, 'application/json');
    expect(res.status).toBe(200);
    expect(await first.slack.store.events.eventStatus(eventId)).toBe('received');
    expect(first.fake.callsOf('chat.postMessage')).toHaveLength(0);
    await first.close();
    open.pop();

    // the next start, on the same store, answers it although Slack never sends it again
    const second = await startHarness({ engine: new FakeEngine(), dir, ingestSample: false });
    open.push(second);
    const post = await second.fake.waitFor(
      () => second.fake.callsOf('chat.postMessage').find((c) => c.args.thread_ts === '7000.0001' && c.result),
      30_000,
      'placeholder after restart',
    );
    const answer = await second.fake.waitFor(
      () =>
        second.fake
          .callsOf('chat.update')
          .find((c) => c.args.ts === post.result!.ts && blocksText(c.args.blocks).includes('Confidence')),
      30_000,
      'answer after restart',
    );
    expect(answer.args.text).toBe('+0.35 °C');
    // marked answered once its answer is published
    await second.slack.idle();
    expect(await second.slack.store.events.eventStatus(eventId)).toBe('answered');
  }, 90_000);

  it('answers, while the process lives, a question whose first post failed', async () => {
    const h = await startHarness({ engine: new FakeEngine(), orphanSweep: { everyMs: 200, idleMs: 0 } });
    open.push(h);
    h.fake.fail('chat.postMessage', 'internal_error');
    const { body: b, eventId } = eventBody({
      type: 'app_mention',
      user: 'U1',
      text: '<@UBOT> How long must the PM-5 warm up?',
      ts: '7000.0002',
      channel: 'C1',
      event_ts: '7000.0002',
    });
    await deliver(h.port, SECRET, b, 'application/json');
    const posts = await h.fake.waitFor(
      async () => {
        const p = h.fake.callsOf('chat.postMessage').filter((c) => c.args.thread_ts === '7000.0002');
        return p.some((c) => c.result) ? p : null;
      },
      30_000,
      'a placeholder posted on the retry',
    );
    expect(posts.filter((c) => c.result)).toHaveLength(1);
    await h.fake.waitFor(
      async () => ((await h.slack.store.events.eventStatus(eventId)) === 'answered' ? true : null),
      30_000,
      'answered',
    );
  }, 60_000);

  it('retries with backoff, then tells the asker privately and stops when nothing can ever be posted', async () => {
    const h = await startHarness({ engine: new FakeEngine(), orphanSweep: { everyMs: 50, idleMs: 20 } });
    open.push(h);
    h.fake.fail('chat.postMessage', 'internal_error', 1000);
    const { body: b, eventId } = eventBody({
      type: 'app_mention',
      user: 'U3',
      text: '<@UBOT> How long must the PM-5 warm up?',
      ts: '7000.0003',
      channel: 'C3',
      event_ts: '7000.0003',
    });
    await deliver(h.port, SECRET, b, 'application/json');
    const told = await h.fake.waitFor(
      () =>
        h.fake
          .callsOf('chat.postEphemeral')
          .find((c) => c.args.user === 'U3' && /could not post an answer/.test(blocksText(c.args.blocks))),
      30_000,
      'the asker told',
    );
    expect(told.args.channel).toBe('C3');
    expect(await h.slack.store.events.eventStatus(eventId)).toBe('answered');
    // five tries in all, spaced out (20, 40, 80, 160 ms idle at least), and none after giving up
    const tries = () => h.fake.callsOf('chat.postMessage').filter((c) => c.args.channel === 'C3').length;
    expect(tries()).toBe(5);
    const at = h.fake
      .callsOf('chat.postMessage')
      .filter((c) => c.args.channel === 'C3')
      .map((c) => c.at);
    for (let i = 2; i < at.length; i++) expect(at[i]! - at[i - 1]!).toBeGreaterThanOrEqual(20 * 2 ** (i - 1) - 5);
    // two more recovery sweeps run, and take nothing up again
    const sweeps = h.slack.service.sweeps;
    await h.fake.waitFor(() => (h.slack.service.sweeps >= sweeps + 2 ? true : null), 10_000, 'two more sweeps');
    expect(tries()).toBe(5);
    h.fake.fail('chat.postMessage', 'internal_error', 0);
  }, 60_000);

  it('does not replay what the listeners leave alone', async () => {
    const h = open.at(-1)!;
    const { body: b, eventId } = eventBody({
      type: 'message',
      channel_type: 'channel',
      user: 'U2',
      text: 'thanks all',
      ts: '7000.0004',
      thread_ts: '6999.0001',
      channel: 'C1',
    });
    await deliver(h.port, SECRET, b, 'application/json');
    await h.fake.waitFor(
      async () => ((await h.slack.store.events.eventStatus(eventId)) === 'ignored' ? true : null),
      10_000,
      'ignored',
    );
    await h.slack.idle();
    expect(h.fake.callsOf('chat.postMessage').filter((c) => c.args.thread_ts === '6999.0001')).toHaveLength(0);
  }, 30_000);
});
