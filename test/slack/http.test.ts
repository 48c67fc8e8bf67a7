import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commandBody, deliver, eventBody } from '../support/slack-stand-in.js';
import { SECRET, answerIn, blocksText, mention, startHarness, type Harness } from './harness.js';
import { FakeEngine } from './fake-engine.js';

// The HTTP transport and the service's flows, on a fake engine (the engine's answers themselves are
// tested end to end in end-to-end.test.ts and in test/engine)
let h: Harness;
beforeAll(async () => {
  h = await startHarness({ engine: new FakeEngine() });
});
afterAll(() => h.close());

describe('Slack over HTTP (real Bolt HTTPReceiver on 127.0.0.1, fake Web API)', () => {
  it('answers a duplicated delivery (Slack retry) exactly once', async () => {
    const { body } = mention('How long must the PM-5 warm up?', '1000.0002');
    await deliver(h.port, SECRET, body, 'application/json');
    await deliver(h.port, SECRET, body, 'application/json', {
      'x-slack-retry-num': '1',
      'x-slack-retry-reason': 'http_timeout',
    });
    await answerIn(h, '1000.0002');
    await deliver(h.port, SECRET, body, 'application/json', {
      'x-slack-retry-num': '2',
      'x-slack-retry-reason': 'http_timeout',
    });
    await h.slack.idle();
    expect(h.fake.callsOf('chat.postMessage').filter((c) => c.args.thread_ts === '1000.0002')).toHaveLength(1);
  });

  it('waits out a 429 with Retry-After and still delivers the answer', async () => {
    h.fake.rateLimit('chat.update', 1, 1);
    const before = h.slack.api.rateLimited;
    const t0 = Date.now();
    const { body } = mention('Which frequency band does the Skylink LR-9 use?', '1000.0003');
    await deliver(h.port, SECRET, body, 'application/json');
    const update = await answerIn(h, '1000.0003');
    expect(h.slack.api.rateLimited).toBe(before + 1);
    expect(update.at - t0).toBeGreaterThanOrEqual(1000);
    expect(update.args.text).toBe('+0.35 °C');
  });

  it('rejects a bad signature and a timestamp more than 5 minutes off either way, and answers none', async () => {
    const n = h.fake.calls.length;
    const { body } = mention('Who is the radio team lead?', '1000.0004');
    const forged = await deliver(h.port, 'f'.repeat(32), body, 'application/json');
    expect(forged.status).toBe(401);
    const stale = await deliver(h.port, SECRET, body, 'application/json', {}, Math.floor(Date.now() / 1000) - 600);
    expect(stale.status).toBe(401);
    const future = await deliver(h.port, SECRET, body, 'application/json', {}, Math.floor(Date.now() / 1000) + 600);
    expect(future.status).toBe(401);
    await h.slack.idle();
    expect(h.fake.calls.length).toBe(n);
  });

  it('answers a direct message in its thread, showing the assistant status while working', async () => {
    const { body } = eventBody({
      type: 'message',
      channel_type: 'im',
      user: 'U7',
      text: 'What salinity correction factor applies at 35 PSU to the dissolved oxygen sensor on the Heron buoy?',
      ts: '1000.0005',
      channel: 'D1',
      event_ts: '1000.0005',
    });
    await deliver(h.port, SECRET, body, 'application/json');
    const status = await h.fake.waitFor(() =>
      h.fake.callsOf('assistant.threads.setStatus').find((c) => c.args.thread_ts === '1000.0005'),
    );
    expect(status.args.channel_id).toBe('D1');
    // the status stands in for a placeholder: the answer is posted once, after it
    const answer = await h.fake.waitFor(() =>
      h.fake.callsOf('chat.postMessage').find((c) => c.args.thread_ts === '1000.0005' && c.result),
    );
    expect(answer.args.text).toBe('+0.35 °C');
    expect(blocksText(answer.args.blocks)).toContain('ragask_trace');
    expect(answer.at).toBeGreaterThanOrEqual(status.at);
    expect(h.fake.callsOf('chat.postMessage').filter((c) => c.args.thread_ts === '1000.0005')).toHaveLength(1);
  });

  it('falls back to a placeholder message where assistant status is not available', async () => {
    const h2 = await startHarness({ engine: new FakeEngine() });
    try {
      h2.fake.fail('assistant.threads.setStatus', 'not_allowed_token_type', 5);
      const { body } = eventBody({
        type: 'message',
        channel_type: 'im',
        user: 'U8',
        text: 'How long must the PM-5 warm up?',
        ts: '1100.0001',
        channel: 'D2',
        event_ts: '1100.0001',
      });
      await deliver(h2.port, SECRET, body, 'application/json');
      const placeholder = await h2.fake.waitFor(() =>
        h2.fake.callsOf('chat.postMessage').find((c) => c.args.channel === 'D2' && c.result),
      );
      expect(String(placeholder.args.text)).toMatch(/Looking through/);
      const update = await h2.fake.waitFor(() =>
        h2.fake
          .callsOf('chat.update')
          .find((c) => c.args.ts === placeholder.result!.ts && blocksText(c.args.blocks).includes('Confidence')),
      );
      expect(update.args.text).toBe('+0.35 °C');
    } finally {
      await h2.close();
    }
  });

  it("acknowledges Slack's app_rate_limited notice at once, and logs it", async () => {
    const notice = JSON.stringify({
      token: 'x',
      type: 'app_rate_limited',
      team_id: 'T1',
      minute_rate_limited: Math.floor(Date.now() / 60_000) * 60,
      api_app_id: 'A1',
    });
    const t0 = Date.now();
    const r = await deliver(h.port, SECRET, notice, 'application/json');
    expect(r.status).toBe(200);
    expect(Date.now() - t0).toBeLessThan(2000);
    expect(h.logs.some((l) => l.includes('app_rate_limited'))).toBe(true);
  });

  it('answers in a group DM as in a private channel of its members: a mention, then a follow-up in its thread', async () => {
    const asked = eventBody({
      type: 'app_mention',
      user: 'U1',
      text: '<@UBOT> How long must the PM-5 warm up?',
      ts: '1000.0030',
      channel: 'G9',
      channel_type: 'mpim',
      event_ts: '1000.0030',
    });
    await deliver(h.port, SECRET, asked.body, 'application/json');
    await answerIn(h, '1000.0030', 'G9');
    const follow = eventBody({
      type: 'message',
      channel_type: 'mpim',
      user: 'U1',
      text: 'and how long for the PM-7?',
      ts: '1000.0031',
      thread_ts: '1000.0030',
      channel: 'G9',
      event_ts: '1000.0031',
    });
    await deliver(h.port, SECRET, follow.body, 'application/json');
    await h.fake.waitFor(
      () =>
        h.fake.callsOf('chat.postMessage').filter((c) => c.args.thread_ts === '1000.0030' && c.args.channel === 'G9')
          .length === 2
          ? true
          : null,
      20_000,
      'follow-up in the group DM',
    );
  });

  it('leaves people talking in an answered thread alone: a non-asker, or a reply that is not a question', async () => {
    const first = mention('How long must the PM-5 warm up?', '1000.0020');
    await deliver(h.port, SECRET, first.body, 'application/json');
    await answerIn(h, '1000.0020');
    const before = h.fake.callsOf('chat.postMessage').filter((c) => c.args.thread_ts === '1000.0020').length;
    const other = eventBody({
      type: 'message',
      channel_type: 'channel',
      user: 'U5',
      text: 'what about the PM-7?',
      ts: '1000.0021',
      thread_ts: '1000.0020',
      channel: 'C1',
      event_ts: '1000.0021',
    });
    const thanks = eventBody({
      type: 'message',
      channel_type: 'channel',
      user: 'U1',
      text: 'thanks, that helps',
      ts: '1000.0022',
      thread_ts: '1000.0020',
      channel: 'C1',
      event_ts: '1000.0022',
    });
    await deliver(h.port, SECRET, other.body, 'application/json');
    await deliver(h.port, SECRET, thanks.body, 'application/json');
    await h.slack.idle();
    expect(h.fake.callsOf('chat.postMessage').filter((c) => c.args.thread_ts === '1000.0020')).toHaveLength(before);
    // a mention pulls ragask back in, from anyone
    const pulled = eventBody({
      type: 'app_mention',
      user: 'U5',
      text: '<@UBOT> and the PM-7?',
      ts: '1000.0023',
      thread_ts: '1000.0020',
      channel: 'C1',
      event_ts: '1000.0023',
    });
    await deliver(h.port, SECRET, pulled.body, 'application/json');
    await h.fake.waitFor(
      () =>
        h.fake.callsOf('chat.postMessage').filter((c) => c.args.thread_ts === '1000.0020').length === before + 1
          ? true
          : null,
      20_000,
      'answer to the mention',
    );
  });

  it("ignores channel messages outside answered threads, and the bot's own messages", async () => {
    const n = h.fake.callsOf('chat.postMessage').length;
    const chatter = eventBody({
      type: 'message',
      channel_type: 'channel',
      user: 'U2',
      text: 'lunch?',
      ts: '1000.0008',
      channel: 'C1',
    });
    const own = eventBody({
      type: 'message',
      channel_type: 'channel',
      bot_id: 'BBOT',
      user: 'UBOT',
      text: 'answer',
      ts: '1000.0009',
      thread_ts: '1000.0006',
      channel: 'C1',
    });
    await deliver(h.port, SECRET, chatter.body, 'application/json');
    await deliver(h.port, SECRET, own.body, 'application/json');
    await h.slack.idle();
    expect(h.fake.callsOf('chat.postMessage').length).toBe(n);
  });

  it('/ragask help and an empty /ragask reply with usage, only to the asker', async () => {
    const channelPosts = h.fake.callsOf('chat.postMessage').length;
    // a private flag with no question, or only control characters after it, is an empty question too
    for (const [text, id] of [
      ['help', 'help1'],
      ['', 'empty1'],
      ['-p', 'empty2'],
      ['--private', 'empty3'],
      ['-p \u0000\u0007', 'empty4'],
      ['-c  ', 'empty5'],
    ] as const) {
      const r = await deliver(
        h.port,
        SECRET,
        commandBody({ text, user_id: 'U1', channel_id: 'C1', response_url: h.fake.responseUrl(id) }),
        'application/x-www-form-urlencoded',
      );
      expect(r.status).toBe(200);
      const resp = await h.fake.waitFor(() => h.fake.responses.find((x) => x.id === id));
      expect(resp.body.response_type).toBe('ephemeral');
      expect(JSON.stringify(resp.body.blocks)).toContain(
        '/ragask &lt;question&gt;'.replace('&lt;', '<').replace('&gt;', '>'),
      );
    }
    // nothing of it went to the channel
    expect(h.fake.callsOf('chat.postMessage').length).toBe(channelPosts);
  });

  it('/ragask <question> answers visibly in the channel, starting a thread', async () => {
    const r = await deliver(
      h.port,
      SECRET,
      commandBody({
        text: 'How long must the PM-5 warm up?',
        user_id: 'U3',
        channel_id: 'C9',
        response_url: h.fake.responseUrl('cmd1'),
      }),
      'application/x-www-form-urlencoded',
    );
    expect(r.status).toBe(200);
    const post = await h.fake.waitFor(() => h.fake.callsOf('chat.postMessage').find((c) => c.args.channel === 'C9'));
    expect(post.args.thread_ts).toBeUndefined();
    const update = await h.fake.waitFor(() =>
      h.fake
        .callsOf('chat.update')
        .find((c) => c.args.channel === 'C9' && blocksText(c.args.blocks).includes('Confidence')),
    );
    expect(update.args.text).toBe('+0.35 °C');
    expect(blocksText(update.args.blocks)).toContain('<@U3> asked');
  });

  it('/ragask -p <question> answers only the asker, through the response URL', async () => {
    await deliver(
      h.port,
      SECRET,
      commandBody({
        text: '-p How long must the PM-5 warm up?',
        user_id: 'U3',
        channel_id: 'C10',
        response_url: h.fake.responseUrl('cmd2'),
      }),
      'application/x-www-form-urlencoded',
    );
    const final = await h.fake.waitFor(() =>
      h.fake.responses.find((x) => x.id === 'cmd2' && x.body.replace_original === true),
    );
    expect(final.body.response_type).toBe('ephemeral');
    expect(final.body.text).toBe('+0.35 °C');
    expect(h.fake.callsOf('chat.postMessage').some((c) => c.args.channel === 'C10')).toBe(false);
  });

  it('keeps secrets out of its logs', () => {
    const all = h.logs.join('');
    expect(all.length).toBeGreaterThan(0);
    expect(all).not.toContain('xoxb-1-test-bot-token');
    expect(all).not.toContain('0123456789abcdef0123456789abcdef');
  });
});
