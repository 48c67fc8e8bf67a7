import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deliver, eventBody, type ApiCall } from '../support/slack-stand-in.js';
import { SECRET, blocksText, startHarness, type Harness } from './harness.js';
import { textObjects } from './text-objects.js';
import { FakeEngine } from './fake-engine.js';

let h: Harness;
const engine = new FakeEngine();
beforeAll(async () => {
  // one question at a time and room for one: the rest of a burst has to wait
  h = await startHarness({ engine, overrides: { RAGASK_ENGINE_CONCURRENCY: 1, RAGASK_QUEUE_LIMIT: 1 } });
});
afterAll(() => h.close());

let seq = 0;
async function mentionAndAnswer(text: string, channel = 'CH'): Promise<ApiCall> {
  const ts = `7000.${String(++seq).padStart(4, '0')}`;
  const { body } = eventBody({ type: 'app_mention', user: 'U1', text: `<@UBOT> ${text}`, ts, channel, event_ts: ts });
  const r = await deliver(h.port, SECRET, body, 'application/json');
  expect(r.status).toBe(200);
  const post = await h.fake.waitFor(
    () => h.fake.callsOf('chat.postMessage').find((c) => c.args.thread_ts === ts && c.result),
    20_000,
    `reply to ${ts}`,
  );
  if (!/Looking through/.test(String(post.args.text))) return post;
  return h.fake.waitFor(
    () =>
      h.fake
        .callsOf('chat.update')
        .find(
          (c) => c.args.ts === post.result!.ts && c.result && /Confidence|evidence/.test(blocksText(c.args.blocks)),
        ),
    20_000,
    `answer to ${ts}`,
  );
}

/** The mrkdwn of the blocks (what Slack parses), with our own, deliberate syntax (citation links, the asker's mention) taken out. */
const userEcho = (call: ApiCall) =>
  JSON.stringify(textObjects(call.args.blocks).mrkdwn)
    .replace(/<https:\/\/wiki\.kestrel\.example[^>]*>/g, '')
    .replace(/<@U1>/g, '');

describe('hostile and odd questions', () => {
  it('answers an empty or blank mention with usage help, not an error', async () => {
    for (const text of ['', '   \t  ']) {
      const reply = await mentionAndAnswer(text);
      expect(blocksText(reply.args.blocks)).toMatch(/Ask me a question/);
    }
  });

  it('bounds a 50,000-character question and says so', async () => {
    const reply = await mentionAndAnswer(`${'How long must the PM-5 warm up? '.repeat(1600)}`.slice(0, 50_000));
    expect(blocksText(reply.args.blocks)).toMatch(/longer than 2000 characters/);
    expect(JSON.stringify(reply.args.blocks).length).toBeLessThan(40_000);
  });

  it('survives control characters and text from every Unicode plane', async () => {
    const planes = [
      '\u0000\u0007\u001b[31m\u200f\u202e\ufeff',
      'Ünïcödé ÅÆØ Ελληνικά кириллица עברית العربية हिन्दी 中文 日本語 한국어',
      '𝔘𝔫𝔦𝔠𝔬𝔡𝔢 😀🚀 𓀀 𠀀𠀁 𰀀 \u{E0041}\u{F0000}\u{10FFFD}',
    ];
    for (const text of planes) {
      const reply = await mentionAndAnswer(`How long must the PM-5 warm up? ${text}`);
      expect(blocksText(reply.args.blocks)).toMatch(/Confidence/);
    }
  });

  it('never echoes mention or link syntax that could ping or link', async () => {
    const reply = await mentionAndAnswer(
      '<!channel> <!here> <!everyone> <@U999> <#C123|general> <https://evil.example|click me> *bold* `code` who leads Project Falcon?',
    );
    const echo = userEcho(reply);
    expect(echo).not.toMatch(/<!channel>|<!here>|<!everyone>|<@U999>|<#C123|<https:\/\/evil/);
    // the question shown back while working is plain text, shown literally ("*bold*" stays so);
    // every mrkdwn text is verbatim (no bare URL or #channel becomes a link) and holds none of it
    const working = h.fake
      .callsOf('chat.postMessage')
      .filter((c) => /Looking through/.test(String(c.args.text)))
      .at(-1)!;
    const { mrkdwn, plain } = textObjects(working.args.blocks);
    expect(plain.some((t) => t.includes('<!channel>') && t.includes('*bold*'))).toBe(true);
    for (const m of mrkdwn) {
      expect(m.verbatim).toBe(true);
      expect(m.text).not.toMatch(/<!channel>|<@U999>|\*bold\*|evil/);
    }
  });
});

describe('under a burst beyond the queue limit', () => {
  it('tells the waiting askers politely that they wait, and answers every question exactly once', async () => {
    const base = seq;
    const questions = [
      'How long must the PM-5 warm up?',
      'Which frequency band does the Skylink LR-9 use?',
      'Who leads Project Heron?',
      'What is the range of the Corvid FC-3?',
      'Who signs calibration records?',
    ];
    // the engine holds every answer until the waiting askers have been told
    const release = engine.hold();
    const answers = Promise.all(questions.map((q, i) => mentionAndAnswer(q, `CQ${i}`)));
    const busy = () =>
      h.fake.callsOf('chat.postEphemeral').filter((c) => /queued and will be answered/.test(blocksText(c.args.blocks)));
    await h.fake.waitFor(
      () => (busy().length >= questions.length - 2 ? true : null),
      20_000,
      'the askers beyond the running and the queued one told',
    );
    release();
    expect(await answers).toHaveLength(5);
    // one running, one queued: the other three were told they wait, and no one twice
    expect(new Set(busy().map((c) => c.args.channel)).size).toBe(busy().length);
    for (let i = 1; i <= 5; i++) {
      const ts = `7000.${String(base + i).padStart(4, '0')}`;
      expect(h.fake.callsOf('chat.postMessage').filter((c) => c.args.thread_ts === ts)).toHaveLength(1);
    }
  });
});

describe('logs', () => {
  it('are JSON lines with a request id per question and the timings of each hop', () => {
    const lines = h.logs
      .flatMap((l) => l.split('\n'))
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    const answered = lines.filter((l) => l.msg === 'slack: answered');
    expect(answered.length).toBeGreaterThan(5);
    for (const l of answered) {
      expect(l.rid).toMatch(/^[0-9a-f]{8}$/);
      const hops = l.hops as { hop: number; ms: number; retrieveMs: number }[];
      expect(hops.length).toBeGreaterThan(0);
      for (const hop of hops) expect(typeof hop.ms).toBe('number');
    }
    expect(new Set(answered.map((l) => l.rid)).size).toBe(answered.length);
  });
});
