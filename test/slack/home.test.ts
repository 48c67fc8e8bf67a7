import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readSourcesFile, syncPass } from '../../src/ingest/sync.js';
import { saveGapReport } from '../../src/engine/gaps.js';
import { tempDir } from '../helpers.js';
import { parseScope } from '../../src/store/access.js';
import { actionBody, deliver, eventBody, type ApiCall } from '../support/slack-stand-in.js';
import { SECRET, blocksText, startHarness, type Harness } from './harness.js';
import { FakeEngine } from './fake-engine.js';

// The App Home tab, through the real Bolt app over loopback on a fake engine: each person sees only
// what they may (their DM's sources, channels they are known to be in, their own questions), and
// an admin acts on the sources of unhelpful answers from it.

let h: Harness;
const PRIVATE = 'CPRIV';
// the sources file an admin's tab reports on: a folder never synced yet, and one that has gone
const sourcesDir = tempDir();
const sourcesFile = path.join(sourcesDir, 'sources.yml');
fs.writeFileSync(sourcesFile, 'sources:\n  - path: wiki\n  - path: gone\n');
beforeAll(async () => {
  h = await startHarness({
    engine: new FakeEngine(),
    overrides: { RAGASK_ADMINS: 'UADMIN', RAGASK_SOURCES_FILE: sourcesFile },
  });
  const gone = readSourcesFile(sourcesFile).slice(1);
  // a missing path is refused before anything is read: its pass needs no encoder or settings
  await syncPass({ store: h.core.store, encoder: null as never, config: null as never }, gone);
  // a gap report as `ragask gaps --all --save` keeps it: questions from a private channel, from
  // another person's DM and from the admin's own DM, with documents some of which the admin may not see
  const q = (question: string, channel: string, user: string) => ({
    question,
    channel,
    user,
    askedAt: 1,
    why: 'no definite answer' as const,
  });
  await saveGapReport(h.core.store, {
    at: '2026-12-05T10:00:00.000Z',
    sinceMs: 7 * 86_400_000,
    groups: [
      {
        count: 2,
        examples: [],
        closest: [{ title: 'Payroll handbook', source: '/d/1.md', url: null }],
        questions: [
          q('When does payroll close in March?', PRIVATE, 'UALICE'),
          q('Is payroll late this month?', 'DUBOB', 'UBOB'),
        ],
      },
      {
        count: 1,
        examples: [],
        closest: [{ title: "Alice's notes", source: '/d/3.md', url: null }],
        questions: [q('Where is the holiday calendar?', 'DUADMIN', 'UADMIN')],
      },
    ],
  });
  const docs = await h.core.store.documents.listDocuments();
  const id = (source: string) => docs.find((d) => d.source === source)!.id;
  // the fake engine cites Doc 1: shared with the private channel only; Doc 3 is Alice's own
  await h.core.store.access.setScope([id('/d/1.md')], parseScope(`channel:${PRIVATE}`));
  await h.core.store.access.setScope([id('/d/3.md')], parseScope('user:UALICE'));
});
afterAll(async () => {
  await h.close();
  fs.rmSync(sourcesDir, { recursive: true, force: true });
});

let seq = 0;
async function ask(user: string, channel: string, question: string): Promise<string> {
  const ts = `3000.${String(++seq).padStart(4, '0')}`;
  const event = channel.startsWith('D')
    ? { type: 'message', channel_type: 'im', user, text: question, ts, channel, event_ts: ts }
    : { type: 'app_mention', user, text: `<@UBOT> ${question}`, ts, channel, event_ts: ts };
  const startedAt = h.fake.calls.length - 1;
  await deliver(h.port, SECRET, eventBody(event).body, 'application/json');
  // the answer: a placeholder updated in place, or (in a DM) a message of its own
  const answer = await h.fake.waitFor(
    () =>
      h.fake.calls.find(
        (c) =>
          (c.method === 'chat.update' || c.method === 'chat.postMessage') &&
          c.args.channel === channel &&
          c.result &&
          blocksText(c.args.blocks).includes('Confidence') &&
          h.fake.calls.indexOf(c) > startedAt,
      ),
    20_000,
    `the answer to ${question}`,
  );
  const messageTs = String(answer.method === 'chat.update' ? answer.args.ts : answer.result!.ts);
  return messageTs;
}

/** Opens a person's Home tab and returns the view published for them. */
async function openHome(user: string): Promise<{ text: string; call: ApiCall }> {
  const before = h.fake.callsOf('views.publish').length;
  await deliver(
    h.port,
    SECRET,
    eventBody({ type: 'app_home_opened', user, channel: `D${user}`, tab: 'home', event_ts: `${Date.now() / 1000}` })
      .body,
    'application/json',
  );
  const call = await h.fake.waitFor(
    () =>
      h.fake
        .callsOf('views.publish')
        .slice(before)
        .find((c) => c.args.user_id === user),
    20_000,
    `views.publish for ${user}`,
  );
  return { text: viewText(call), call };
}

/** A published view's blocks (the WebClient sends the view as JSON text). */
function viewOf(call: ApiCall): { blocks: { type: string; elements?: { action_id: string; value: string }[] }[] } {
  return typeof call.args.view === 'string' ? JSON.parse(call.args.view) : (call.args.view as never);
}

const viewText = (call: ApiCall) => blocksText(viewOf(call).blocks);

function buttonsOf(call: ApiCall): { action_id: string; value: string }[] {
  return viewOf(call)
    .blocks.filter((b) => b.type === 'actions')
    .flatMap((b) => b.elements ?? []);
}

describe('the App Home tab', () => {
  it("shows each person their own questions and sources, and nothing of another's", async () => {
    const aliceAnswer = await ask('UALICE', PRIVATE, 'What is the payroll cutoff for the private team?');
    await ask('UBOB', 'DBOB', 'Which VPN host do contractors use?');
    await ask('UBOB', 'CPUB', 'Where is the office wifi password kept?');
    // Alice "Not helpful" on her answer, with a reason
    await deliver(
      h.port,
      SECRET,
      actionBody({
        user: 'UALICE',
        channel: PRIVATE,
        messageTs: aliceAnswer,
        actionId: 'ragask_feedback_not_helpful',
        value: notHelpfulValue(aliceAnswer),
        responseUrl: h.fake.responseUrl('home-nh'),
      }),
      'application/x-www-form-urlencoded',
    );
    await h.fake.waitFor(async () => (await h.slack.store.feedback.listFeedback()).find((f) => f.user === 'UALICE'));

    const alice = await openHome('UALICE');
    expect(alice.text).toContain('How to ask');
    expect(alice.text).toContain('What is the payroll cutoff for the private team?');
    expect(alice.text).toMatch(/you marked it not helpful/);
    // her own source counts in her DMs (8 of 9: Doc 1 is the channel's), and the private channel is listed: she asked there
    expect(alice.text).toMatch(/\*8\* source\(s\) in your direct messages/);
    expect(alice.text).toContain(`<#${PRIVATE}> (1)`);
    expect(alice.text).toContain('https://test.slack.com/archives/CPRIV/');
    expect(alice.text).not.toContain('Which VPN host do contractors use?');
    expect(alice.text).not.toContain('For admins');

    const bob = await openHome('UBOB');
    expect(bob.text).toContain('Which VPN host do contractors use?');
    expect(bob.text).not.toContain('payroll cutoff');
    expect(bob.text).not.toContain(PRIVATE);
    // a channel he is in that shares nothing of its own is not listed (and never counts another channel's sources)
    expect(bob.text).not.toContain('<#CPUB>');
    // neither the private channel's source nor Alice's own
    expect(bob.text).toMatch(/\*7\* source\(s\) in your direct messages/);
  });

  it('gives admins the store and the unhelpful answers they may see, with buttons that act on the source', async () => {
    // the admin is in no private channel yet: Alice's unhelpful answer cites a source they may not see
    const outside = await openHome('UADMIN');
    expect(outside.text).toContain('For admins');
    expect(outside.text).toMatch(/SQLite \+ HNSW \(embedded\)\*, 9 document\(s\)/);
    // each kept-current source with its last sync, and the failure of the one that has gone
    expect(outside.text).toContain(`\`${path.join(sourcesDir, 'wiki')}\` never synced`);
    expect(outside.text).toMatch(/0 added, 0 changed, 0 unchanged, 0 removed, 1 failed/);
    expect(outside.text).toContain(`${path.join(sourcesDir, 'gone')}: not found; its documents are kept`);
    // the gap report as this admin may read it: their own DM's question, not the private channel's
    // nor another person's DM, and no closest document they may not see
    expect(outside.text).toContain('1 question(s), e.g. _Where is the holiday calendar?_');
    expect(outside.text).not.toContain('payroll');
    expect(outside.text).not.toContain('Is payroll late');
    expect(outside.text).not.toContain("Alice's notes");
    expect(outside.text).not.toContain('payroll cutoff');
    expect(buttonsOf(outside.call)).toHaveLength(0);

    // once the admin asks in the channel (a member, as the events show), the answer and its source appear
    await ask('UADMIN', PRIVATE, 'Who approves payroll changes?');
    const inside = await openHome('UADMIN');
    expect(inside.text).toContain('payroll cutoff');
    expect(inside.text).toContain(
      '1 question(s), e.g. _When does payroll close in March?_ — closest: Payroll handbook',
    );
    expect(inside.text).not.toContain('Is payroll late');
    const hide = buttonsOf(inside.call).find((b) => b.action_id === 'ragask_home_source_hide')!;
    expect(hide.value).toBe('/d/1.md');

    const published = h.fake.callsOf('views.publish').length;
    await deliver(
      h.port,
      SECRET,
      actionBody({
        user: 'UADMIN',
        channel: 'DUADMIN',
        messageTs: '0',
        actionId: hide.action_id,
        value: hide.value,
        responseUrl: h.fake.responseUrl('home-hide'),
      }),
      'application/x-www-form-urlencoded',
    );
    await h.fake.waitFor(() => h.fake.callsOf('views.publish').length > published);
    expect(await h.core.store.access.sourceFlags()).toEqual([
      expect.objectContaining({ source: '/d/1.md', action: 'hide', by: 'UADMIN' }),
    ]);
    expect(viewText(h.fake.callsOf('views.publish').at(-1)!)).toMatch(/1 source\(s\) hidden/);

    // someone who is not an admin cannot act, whatever they send
    await deliver(
      h.port,
      SECRET,
      actionBody({
        user: 'UBOB',
        channel: 'DBOB',
        messageTs: '0',
        actionId: 'ragask_home_source_demote',
        value: '/d/2.md',
        responseUrl: h.fake.responseUrl('home-bob'),
      }),
      'application/x-www-form-urlencoded',
    );
    await h.slack.idle();
    expect((await h.core.store.access.sourceFlags()).map((f) => f.source)).toEqual(['/d/1.md']);
  });
});

/** What the Not helpful button of the answer message `ts` carries. */
function notHelpfulValue(ts: string): string {
  const update = h.fake
    .callsOf('chat.update')
    .filter((c) => c.args.ts === ts)
    .at(-1)!;
  const blocks = update.args.blocks as { type: string; elements?: { action_id: string; value: string }[] }[];
  return blocks.flatMap((b) => b.elements ?? []).find((e) => e.action_id === 'ragask_feedback_not_helpful')!.value;
}
