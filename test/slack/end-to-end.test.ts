import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deliver, eventBody } from '../support/slack-stand-in.js';
import { SECRET, answerIn, blocksText, mention, startHarness, type Harness } from './harness.js';

// The real engine behind the real Bolt app: what the sample's questions are answered with, cited,
// and how a follow-up is read in the context of its thread. The flows around it run on a fake
// engine (http.test.ts, buttons.test.ts, …).
let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

describe('answers of the real engine in Slack (sample corpus, real Bolt over loopback)', () => {
  it('answers an @-mention in a thread under the question, with citations and buttons', async () => {
    const { body } = mention('Who leads the project whose drone lost telemetry on 2024-03-14?', '1000.0001');
    const r = await deliver(h.port, SECRET, body, 'application/json');
    expect(r.status).toBe(200);
    const placeholder = await h.fake.waitFor(() =>
      h.fake.callsOf('chat.postMessage').find((c) => c.args.thread_ts === '1000.0001'),
    );
    expect(String(placeholder.args.text)).toMatch(/Looking through the documents/);
    const update = await answerIn(h, '1000.0001');
    const text = blocksText(update.args.blocks);
    // the short answer, or (its calibrated P sits near the threshold) the line that holds it, first
    expect(['Mirela Ostrowski', 'I could not find a definite answer. The closest the evidence comes:']).toContain(
      update.args.text,
    );
    expect(text.slice(0, text.indexOf('Chain of evidence'))).toMatch(
      /Project lead: Mirela Ostrowski|^Mirela Ostrowski/,
    );
    expect(text).toContain('Chain of evidence');
    expect(text).toContain('<https://wiki.kestrel.example/projects/falcon|Project Falcon › Team>');
    expect(text).toContain('INC-2024-031');
    expect(text).toMatch(/ragask_trace/);
    expect(text).toMatch(/ragask_feedback_helpful/);
  });

  it('treats a reply in an answered thread as a follow-up, conditioned on the earlier question', async () => {
    const first = mention(
      'Which calibration offset applies at −20 °C to the temperature sensor used in Project Falcon?',
      '1000.0006',
    );
    await deliver(h.port, SECRET, first.body, 'application/json');
    await answerIn(h, '1000.0006');
    // a plain message in the thread, no mention
    const follow = eventBody({
      type: 'message',
      channel_type: 'channel',
      user: 'U1',
      text: 'and what about at −40 °C?',
      ts: '1000.0007',
      thread_ts: '1000.0006',
      channel: 'C1',
      event_ts: '1000.0007',
    });
    await deliver(h.port, SECRET, follow.body, 'application/json');
    const replies = await h.fake.waitFor(() => {
      const posts = h.fake.callsOf('chat.postMessage').filter((c) => c.args.thread_ts === '1000.0006');
      return posts.length === 2 ? posts : null;
    });
    expect(replies).toHaveLength(2);
    const final = await h.fake.waitFor(
      () =>
        h.fake
          .callsOf('chat.update')
          .filter((c) => blocksText(c.args.blocks).includes('+0.42'))
          .at(-1),
      20_000,
      'follow-up answer',
    );
    expect(blocksText(final.args.blocks)).toContain('Temperature: -40 °C; Offset: +0.42 °C');
  });
});
