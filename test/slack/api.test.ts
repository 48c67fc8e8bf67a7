import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SlackApi, SLACK_TIERS } from '../../src/slack/api.js';
import { FakeSlack } from '../support/slack-stand-in.js';

let fake: FakeSlack;
beforeAll(async () => {
  fake = new FakeSlack();
  await fake.start();
});
afterAll(() => fake.stop());

describe('rate-limited Web API calls', () => {
  it("spaces chat.postMessage to about one per second per channel (Slack's limit), channels in parallel", async () => {
    const api = new SlackApi({ token: 'xoxb-1-t', apiUrl: fake.apiUrl, tiers: SLACK_TIERS });
    const t0 = Date.now();
    await Promise.all([
      api.postMessage({ channel: 'CA', text: 'one' }),
      api.postMessage({ channel: 'CA', text: 'two' }),
      api.postMessage({ channel: 'CA', text: 'three' }),
      api.postMessage({ channel: 'CB', text: 'other channel' }),
    ]);
    const a = fake
      .callsOf('chat.postMessage')
      .filter((c) => c.args.channel === 'CA')
      .map((c) => c.at - t0);
    const b = fake
      .callsOf('chat.postMessage')
      .filter((c) => c.args.channel === 'CB')
      .map((c) => c.at - t0);
    expect(a).toHaveLength(3);
    // about a second apart (bottleneck spaces the starts; the stand-in sees them a little jittered)
    expect(a[1]! - a[0]!).toBeGreaterThanOrEqual(750);
    expect(a[2]! - a[1]!).toBeGreaterThanOrEqual(750);
    // the other channel does not queue behind the first one's spacing (relative, not a timed bound)
    expect(b[0]!).toBeLessThan(a[1]!);
    await api.stop();
  });

  it('honours Retry-After on HTTP 429 and drops nothing', async () => {
    const api = new SlackApi({
      token: 'xoxb-1-t',
      apiUrl: fake.apiUrl,
      tiers: { postMessagePerChannelMs: 10, tier3PerMinute: 1000, tier4PerMinute: 1000 },
    });
    fake.rateLimit('chat.update', 2, 1);
    const t0 = Date.now();
    await Promise.all([
      api.update({ channel: 'CC', ts: '1.1', text: 'a' }),
      api.update({ channel: 'CC', ts: '1.2', text: 'b' }),
      api.update({ channel: 'CC', ts: '1.3', text: 'c' }),
    ]);
    const ok = fake.callsOf('chat.update').filter((c) => c.args.channel === 'CC' && c.result);
    expect(new Set(ok.map((c) => c.args.ts))).toEqual(new Set(['1.1', '1.2', '1.3']));
    expect(api.rateLimited).toBe(2);
    expect(Math.max(...ok.map((c) => c.at)) - t0).toBeGreaterThanOrEqual(1000);
    await api.stop();
  });

  it('reports a Slack error (not a rate limit) to the caller', async () => {
    const api = new SlackApi({ token: 'xoxb-1-t', apiUrl: fake.apiUrl });
    fake.fail('chat.postMessage', 'not_in_channel');
    await expect(api.postMessage({ channel: 'CZ', text: 'x' })).rejects.toThrow(/not_in_channel/);
    await api.stop();
  });
});
