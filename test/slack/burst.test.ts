import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deliver, eventBody } from '../support/slack-stand-in.js';
import { SECRET, blocksText, startHarness, type Harness } from './harness.js';
import { FakeEngine } from './fake-engine.js';

// Slack's update tier cut to one call a minute: a burst spends it with the first answer.
const UPDATE_PERIOD_MS = 60_000;
let h: Harness;
beforeAll(async () => {
  h = await startHarness({
    engine: new FakeEngine(),
    tiers: { postMessagePerChannelMs: 20, tier3PerMinute: 1, tier4PerMinute: 1000 },
  });
});
afterAll(() => h.close());

describe('a sustained burst with the update tier spent', () => {
  it('posts the answers as new messages in their threads instead of waiting for updates', async () => {
    const channels = ['CB1', 'CB2', 'CB3', 'CB4'];
    for (const [i, channel] of channels.entries()) {
      const ts = `8000.000${i + 1}`;
      const { body } = eventBody({
        type: 'app_mention',
        user: 'U1',
        text: '<@UBOT> How long must the PM-5 warm up?',
        ts,
        channel,
        event_ts: ts,
      });
      await deliver(h.port, SECRET, body, 'application/json');
    }
    // every question answered in its thread, as an update of its placeholder or as a new message
    const answered = (channel: string) =>
      h.fake
        .callsOf('chat.update')
        .some((c) => c.args.channel === channel && c.result && blocksText(c.args.blocks).includes('Confidence')) ||
      h.fake
        .callsOf('chat.postMessage')
        .some((c) => c.args.channel === channel && c.result && blocksText(c.args.blocks).includes('Confidence'));
    // with one update a minute, waiting for updates would take minutes: the answers must all be
    // there well inside the first minute (the wait fails the test otherwise)
    await h.fake.waitFor(
      () => (channels.every(answered) ? true : null),
      UPDATE_PERIOD_MS / 3,
      'every answer, well before a second update is allowed',
    );
    const asNew = h.fake
      .callsOf('chat.postMessage')
      .filter((c) => channels.includes(String(c.args.channel)) && blocksText(c.args.blocks).includes('Confidence'));
    expect(asNew.length).toBeGreaterThanOrEqual(channels.length - 1);
    for (const c of asNew) expect(c.args.thread_ts).toMatch(/^8000\./);
    // and each question got exactly one answer
    for (const ch of channels) {
      const n =
        h.fake
          .callsOf('chat.postMessage')
          .filter((c) => c.args.channel === ch && blocksText(c.args.blocks).includes('Confidence')).length +
        h.fake
          .callsOf('chat.update')
          .filter((c) => c.args.channel === ch && blocksText(c.args.blocks).includes('Confidence')).length;
      expect(n).toBe(1);
    }
  }, 60_000);
});
