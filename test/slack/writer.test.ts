import { afterEach, describe, expect, it } from 'vitest';
import { openAIChat } from '../../src/engine/writer/client.js';
import { answerWriter } from '../../src/engine/writer/index.js';
import { silentLogger } from '../../src/log.js';
import { actionBody, deliver } from '../support/slack-stand-in.js';
import { FakeLlm, type Scripted } from '../support/llm-stand-in.js';
import { FakeEngine } from './fake-engine.js';
import { SECRET, answerIn, blocksText, mention, startHarness, type Harness } from './harness.js';

// The optional writer in Slack: the extractive answer first, as without a writer; then a written
// answer streams into the thread and is replaced by its checked text, or by a note when it fails.
// On the fake engine, with a stand-in chat endpoint and a support judge that finds every cited
// sentence close (the checker's reading is tested in test/engine/writer.test.ts).

const running: { stop(): Promise<void> }[] = [];
afterEach(async () => {
  for (const r of running.splice(0).reverse()) await r.stop();
});

async function harnessWith(script: Scripted[]): Promise<Harness> {
  const llm = new FakeLlm(script);
  await llm.start();
  running.push(llm);
  const settings = { url: llm.url, model: llm.model, apiKey: null, timeoutMs: 10_000, maxTokens: 200 };
  const writer = answerWriter({
    client: openAIChat(settings),
    judge: { similarity: async () => 0.9 },
    settings,
    log: silentLogger,
    threshold: 0.6,
  });
  const h = await startHarness({ engine: new FakeEngine(), writer });
  running.push({ stop: () => h.close() });
  return h;
}

const GOOD = 'The Vantor TS-40 offset at −20 °C is +0.35 °C [1]. At −40 °C the offset is +0.50 °C [1].';

/** The last chat.update of the streamed message `ts` (its checked text or its note). */
const finalOf = (h: Harness, ts: string) =>
  h.fake.waitFor(() => h.fake.callsOf('chat.update').find((c) => c.args.ts === ts && c.result), 20_000, `final ${ts}`);

describe('the written answer in Slack', () => {
  it('streams after the extractive answer, then shows the checked text with its source linked', async () => {
    const h = await harnessWith([{ reply: GOOD, chunkDelayMs: 150 }]);
    const { body } = mention('What is the TS-40 offset at −20 °C?', '3000.0001');
    await deliver(h.port, SECRET, body, 'application/json');
    const answer = await answerIn(h, '3000.0001');
    expect(answer.args.text).toBe('+0.35 °C');
    const start = await h.fake.waitFor(() => h.fake.callsOf('chat.startStream')[0], 20_000, 'startStream');
    expect(start.args).toMatchObject({ channel: 'C1', thread_ts: '3000.0001', recipient_user_id: 'U1' });
    // the extractive answer went out first: the stream starts after it
    expect(h.fake.calls.indexOf(start)).toBeGreaterThan(h.fake.calls.indexOf(answer));
    const ts = String(start.result!.ts);
    const final = await finalOf(h, ts);
    expect(h.fake.callsOf('chat.appendStream').length).toBeGreaterThan(0);
    expect(h.fake.callsOf('chat.stopStream').map((c) => c.args.ts)).toEqual([ts]);
    expect(final.args.text).toBe('The Vantor TS-40 offset at −20 °C is +0.35 °C [1].');
    const text = blocksText(final.args.blocks);
    expect(text).toContain('<https://wiki.example/ts40|[1]>');
    expect(text).toContain(':scissors: 1 written sentence was dropped');
  });

  it("shows, in the written answer's trace, which sentence was dropped and why", async () => {
    const h = await harnessWith([{ reply: GOOD }]);
    const { body } = mention('What is the TS-40 offset at −20 °C?', '3000.0003');
    await deliver(h.port, SECRET, body, 'application/json');
    const start = await h.fake.waitFor(() => h.fake.callsOf('chat.startStream')[0], 20_000, 'startStream');
    const ts = String(start.result!.ts);
    const final = await finalOf(h, ts);
    expect(blocksText(final.args.blocks)).toContain('The trace shows which, and why.');
    const actions = (final.args.blocks as { type: string; elements?: { action_id: string; value: string }[] }[])
      .filter((b) => b.type === 'actions')
      .flatMap((b) => b.elements ?? []);
    expect(actions.map((a) => a.action_id)).toEqual(['ragask_trace']);
    await deliver(
      h.port,
      SECRET,
      actionBody({
        user: 'U2',
        channel: 'C1',
        messageTs: ts,
        threadTs: '3000.0003',
        actionId: 'ragask_trace',
        value: actions[0]!.value,
        responseUrl: h.fake.responseUrl('rw1'),
      }),
      'application/x-www-form-urlencoded',
    );
    const trace = await h.fake.waitFor(
      () => h.fake.callsOf('chat.postEphemeral').find((c) => c.args.user === 'U2'),
      20_000,
      'trace',
    );
    const text = blocksText(trace.args.blocks);
    expect(text).toContain('Written by stand-in-model in ');
    expect(text).toContain('kept, support 0.90; cites [1]');
    expect(text).toContain('dropped: states what its sources do not (+0.50)');
    expect(text).toContain('At −40 °C the offset is +0.50 °C [1].');
  });

  it('withdraws the draft with a note when the writer fails, and the answer stands', async () => {
    const h = await harnessWith([{ status: 500 }]);
    const { body } = mention('What is the TS-40 offset at −20 °C?', '3000.0002');
    await deliver(h.port, SECRET, body, 'application/json');
    expect((await answerIn(h, '3000.0002')).args.text).toBe('+0.35 °C');
    const start = await h.fake.waitFor(() => h.fake.callsOf('chat.startStream')[0], 20_000, 'startStream');
    const final = await finalOf(h, String(start.result!.ts));
    expect(final.args.text).toBe(
      'The written answer was withdrawn (server error); the answer above is read from the evidence.',
    );
  });
});
