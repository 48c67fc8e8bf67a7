import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { actionBody, deliver, eventBody, type ApiCall } from '../support/slack-stand-in.js';
import { SECRET, blocksText, startHarness, type Harness } from './harness.js';
import { FakeEngine, stopped } from './fake-engine.js';

let h: Harness;
const engine = new FakeEngine();
/** How far the Slack state's clock runs ahead of the wall clock (a test moves it past a button's TTL). */
let ahead = 0;
/** Past the longest TTL RAGASK_STATE_TTL_H allows (90 days): any state has expired. */
const PAST_ANY_TTL_MS = 91 * 86400_000;
beforeAll(async () => {
  // every answer stops with suggested next hops
  engine.reply = stopped;
  h = await startHarness({ engine, clock: () => Date.now() + ahead });
});
afterAll(() => h.close());

interface Button {
  action_id: string;
  value: string;
  text: { text: string };
}

function buttonsOf(call: ApiCall): Button[] {
  const blocks = call.args.blocks as { type: string; elements?: Button[] }[];
  return blocks.filter((b) => b.type === 'actions').flatMap((b) => b.elements ?? []);
}

async function ask(question: string, ts: string, user = 'U1'): Promise<{ messageTs: string; update: ApiCall }> {
  const { body } = eventBody({
    type: 'app_mention',
    user,
    text: `<@UBOT> ${question}`,
    ts,
    channel: 'C1',
    event_ts: ts,
  });
  await deliver(h.port, SECRET, body, 'application/json');
  const post = await h.fake.waitFor(() =>
    h.fake.callsOf('chat.postMessage').find((c) => c.args.thread_ts === ts && c.result),
  );
  const messageTs = String(post.result!.ts);
  const update = await h.fake.waitFor(() =>
    h.fake
      .callsOf('chat.update')
      .find((c) => c.args.ts === messageTs && blocksText(c.args.blocks).includes('Confidence')),
  );
  return { messageTs, update };
}

async function click(user: string, messageTs: string, threadTs: string, b: Button, responseId = `r${Date.now()}`) {
  return deliver(
    h.port,
    SECRET,
    actionBody({
      user,
      channel: 'C1',
      messageTs,
      threadTs,
      actionId: b.action_id,
      value: b.value,
      responseUrl: h.fake.responseUrl(responseId),
    }),
    'application/x-www-form-urlencoded',
  );
}

const ephemeralTo = (user: string, pattern: RegExp) => () =>
  h.fake.callsOf('chat.postEphemeral').find((c) => c.args.user === user && pattern.test(blocksText(c.args.blocks)));

const QUESTION = 'Who leads the project whose drone lost telemetry on 2024-03-14?';

/** The question asked by U1 in a thread of its own (each test its own, so none depends on another). */
async function askFresh(threadTs: string): Promise<{ messageTs: string; buttons: Button[] }> {
  const r = await ask(QUESTION, threadTs);
  return { messageTs: r.messageTs, buttons: buttonsOf(r.update) };
}

describe('suggested-hop buttons', () => {
  it('offers "Continue with" buttons for the suggested next hops, and "Stop here"', async () => {
    const { buttons } = await askFresh('2000.0001');
    const labels = buttons.map((b) => b.text.text);
    // the entity as the document writes it, and where it leads
    expect(labels).toContain('Continue with: Vantor TS-40 → Vantor TS-40 Datasheet');
    expect(labels).toContain('Continue with: Kestrel Labs → its page');
    expect(labels).toContain('Stop here');
    expect(labels).toContain('Show trace');
    for (const b of buttons) expect(b.value.length).toBeLessThanOrEqual(2000);
  });

  it('answers someone outside the thread privately, and changes nothing', async () => {
    const { messageTs, buttons } = await askFresh('2000.0004');
    const updates = h.fake.callsOf('chat.update').length;
    const r = await click('U9', messageTs, '2000.0004', buttons[0]!);
    expect(r.status).toBe(200);
    const note = await h.fake.waitFor(ephemeralTo('U9', /Only the people who asked in this thread/));
    expect(note.args.channel).toBe('C1');
    expect(h.fake.callsOf('chat.update').length).toBe(updates);
  });

  it('resumes the chain from the stored state when a participant clicks, and updates the message', async () => {
    const { messageTs, buttons } = await askFresh('2000.0005');
    const kestrel = buttons.find((b) => b.text.text.startsWith('Continue with: Kestrel Labs'))!;
    const before = engine.calls.filter((c) => c.kind === 'resume').length;
    await click('U1', messageTs, '2000.0005', kestrel);
    const final = await h.fake.waitFor(() =>
      h.fake
        .callsOf('chat.update')
        .find(
          (c) =>
            c.args.ts === messageTs &&
            blocksText(c.args.blocks).includes('Hop 2') &&
            blocksText(c.args.blocks).includes('Confidence'),
        ),
    );
    // the engine resumed the stored result with the clicked suggestion, and the message shows its answer
    const resumed = engine.calls.filter((c) => c.kind === 'resume').slice(before);
    expect(resumed).toHaveLength(1);
    expect(resumed[0]).toMatchObject({
      question: 'Who leads the project whose drone lost telemetry on 2024-03-14?',
      choice: 1,
    });
    expect(final.args.text).toBe('+0.35 °C');
    expect(blocksText(final.args.blocks)).toContain('via _Kestrel Labs_');
  });

  it('says so politely when a button was already used', async () => {
    const { messageTs, buttons } = await askFresh('2000.0006');
    const kestrel = buttons.find((b) => b.text.text.startsWith('Continue with: Kestrel Labs'))!;
    await click('U1', messageTs, '2000.0006', kestrel);
    await h.fake.waitFor(() =>
      h.fake.callsOf('chat.update').find((c) => c.args.ts === messageTs && blocksText(c.args.blocks).includes('Hop 2')),
    );
    await click(
      'U1',
      messageTs,
      '2000.0006',
      buttons.find((b) => b.text.text.startsWith('Continue with: Kestrel Labs'))!,
    );
    await h.fake.waitFor(ephemeralTo('U1', /already continued/));
  });

  it('says so politely when a button has expired', async () => {
    const r = await ask('Who leads the project whose drone lost telemetry on 2024-03-14?', '2000.0002');
    const b = buttonsOf(r.update)[0]!;
    // the state's clock moves past its TTL: the button has expired
    ahead = PAST_ANY_TTL_MS;
    try {
      await click('U1', r.messageTs, '2000.0002', b);
      await h.fake.waitFor(ephemeralTo('U1', /expired/));
    } finally {
      ahead = 0;
    }
  });

  it('"Stop here" keeps the answer without suggestions', async () => {
    const r = await ask('Who leads the project whose drone lost telemetry on 2024-03-14?', '2000.0003');
    const stop = buttonsOf(r.update).find((b) => b.text.text === 'Stop here')!;
    await click('U1', r.messageTs, '2000.0003', stop);
    const final = await h.fake.waitFor(() =>
      h.fake
        .callsOf('chat.update')
        .find((c) => c.args.ts === r.messageTs && blocksText(c.args.blocks).includes('Stopped here by')),
    );
    expect(buttonsOf(final).some((b) => b.action_id.startsWith('ragask_continue'))).toBe(false);
  });

  it('shows the trace of every hop to whoever asks for it', async () => {
    const { messageTs, buttons } = await askFresh('2000.0007');
    const trace = buttons.find((b) => b.text.text === 'Show trace')!;
    await click('U4', messageTs, '2000.0007', trace);
    const t = await h.fake.waitFor(ephemeralTo('U4', /Trace/));
    const text = blocksText(t.args.blocks);
    expect(text).toContain('*Hop 1*');
    expect(text).toMatch(/coherence 0\.\d{3}/);
    expect(text).toContain('candidates');
  });

  it('stores feedback with the question, the answer and the evidence ids', async () => {
    const { messageTs, buttons } = await askFresh('2000.0008');
    const helpful = buttons.find((b) => b.action_id === 'ragask_feedback_helpful')!;
    await click('U5', messageTs, '2000.0008', helpful);
    await h.fake.waitFor(ephemeralTo('U5', /Thanks/));
    const f = (await h.slack.store.feedback.listFeedback()).find((x) => x.user === 'U5')!;
    expect(f).toMatchObject({
      value: 'helpful',
      channel: 'C1',
      question: 'Who leads the project whose drone lost telemetry on 2024-03-14?',
    });
    expect(f.evidence.length).toBeGreaterThan(0);
  });

  it('asks why an answer was not helpful, in one click, and keeps the reason with the feedback', async () => {
    const { messageTs, buttons } = await askFresh('2000.0009');
    const notHelpful = buttons.find((b) => b.action_id === 'ragask_feedback_not_helpful')!;
    await click('U6', messageTs, '2000.0009', notHelpful);
    const asked = await h.fake.waitFor(ephemeralTo('U6', /What was wrong with it/));
    const reasons = buttonsOf(asked);
    expect(reasons.map((b) => b.text.text)).toEqual(['It is wrong', 'It is out of date', 'Not what I asked']);
    const entry = async () => (await h.slack.store.feedback.listFeedback()).find((x) => x.user === 'U6')!;
    expect(await entry()).toMatchObject({ value: 'not_helpful', reason: null });
    await click(
      'U6',
      messageTs,
      '2000.0009',
      reasons.find((b) => b.action_id === 'ragask_feedback_reason_outdated')!,
    );
    await h.fake.waitFor(ephemeralTo('U6', /what to fix/));
    expect(await entry()).toMatchObject({ value: 'not_helpful', reason: 'outdated' });
    // someone who gave no "not helpful" cannot attach a reason to another person's feedback
    await click('U7', messageTs, '2000.0009', reasons[0]!);
    await h.fake.waitFor(ephemeralTo('U7', /not helpful first/));
    expect((await h.slack.store.feedback.listFeedback()).some((x) => x.user === 'U7')).toBe(false);
  });
});
