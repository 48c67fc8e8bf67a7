import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseScope } from '../../src/store/access.js';
import { SAMPLE_DIR } from '../helpers.js';
import { actionBody, commandBody, deliver, eventBody, type ApiCall } from '../support/slack-stand-in.js';
import { SECRET, blocksText, startHarness, type Harness } from './harness.js';

let h: Harness;
let total = 0;
let incidentCount = 0;
beforeAll(async () => {
  h = await startHarness({ overrides: { RAGASK_COHERENCE_THRESHOLD: 0.999, RAGASK_STOP_FOR_PERSON: 'always' } });
  const docs = await h.core.store.documents.listDocuments();
  const incidents = docs.filter((d) => d.source.startsWith(path.join(SAMPLE_DIR, 'incidents'))).map((d) => d.id);
  await h.core.store.access.setScope(incidents, parseScope('channel:CA'));
  total = docs.length;
  incidentCount = incidents.length;
});
afterAll(() => h.close());

const q = 'Who leads the project whose drone lost telemetry on 2024-03-14?';
const leaks = (text: string) => /INC-2024-0|north of Alta|SEV-[23]|eleven smoke alarms/.test(text);

async function mention(channel: string, ts: string, user = 'U1'): Promise<ApiCall> {
  const { body } = eventBody({ type: 'app_mention', user, text: `<@UBOT> ${q}`, ts, channel, event_ts: ts });
  await deliver(h.port, SECRET, body, 'application/json');
  const post = await h.fake.waitFor(() =>
    h.fake.callsOf('chat.postMessage').find((c) => c.args.thread_ts === ts && c.result),
  );
  return h.fake.waitFor(() =>
    h.fake
      .callsOf('chat.update')
      .find((c) => c.args.ts === post.result!.ts && blocksText(c.args.blocks).includes('Confidence')),
  );
}

describe('per-channel access to sources, through Slack', () => {
  it('cites a channel-scoped document in its channel only (mentions)', async () => {
    expect(leaks(blocksText((await mention('CA', '5000.0001')).args.blocks))).toBe(true);
    const inB = await mention('CB', '5000.0002');
    expect(leaks(blocksText(inB.args.blocks))).toBe(false);
    // …and the suggestions it offers in B never point into A's documents
    expect(
      leaks(
        JSON.stringify(
          (await h.slack.store.states.getState(
            (
              JSON.parse(
                (inB.args.blocks as { type: string; elements?: { value: string }[] }[]).find(
                  (b) => b.type === 'actions',
                )!.elements![0]!.value,
              ) as { k: string }
            ).k,
          ))!.result,
        ),
      ),
    ).toBe(false);
  });

  it('keeps it out of /ragask in another channel and out of DMs', async () => {
    await deliver(
      h.port,
      SECRET,
      commandBody({ text: q, user_id: 'U2', channel_id: 'CB', response_url: h.fake.responseUrl('acc-cmd') }),
      'application/x-www-form-urlencoded',
    );
    const update = await h.fake.waitFor(() =>
      h.fake.callsOf('chat.update').find((c) => c.args.channel === 'CB' && blocksText(c.args.blocks).includes('asked')),
    );
    expect(leaks(blocksText(update.args.blocks))).toBe(false);
    const dm = eventBody({
      type: 'message',
      channel_type: 'im',
      user: 'U2',
      text: q,
      ts: '5000.0003',
      channel: 'D9',
      event_ts: '5000.0003',
    });
    await deliver(h.port, SECRET, dm.body, 'application/json');
    const answer = await h.fake.waitFor(() =>
      h.fake
        .callsOf('chat.postMessage')
        .find((c) => c.args.channel === 'D9' && blocksText(c.args.blocks).includes('Confidence')),
    );
    expect(leaks(blocksText(answer.args.blocks))).toBe(false);
  });

  it('does not treat a message in channel B as a follow-up of a thread in channel A', async () => {
    await mention('CA', '5000.0004');
    const n = h.fake.callsOf('chat.postMessage').length;
    const cross = eventBody({
      type: 'message',
      channel_type: 'channel',
      user: 'U2',
      text: 'and who is on call?',
      ts: '5000.0005',
      thread_ts: '5000.0004',
      channel: 'CB',
    });
    await deliver(h.port, SECRET, cross.body, 'application/json');
    await h.slack.idle();
    expect(h.fake.callsOf('chat.postMessage').length).toBe(n);
  });

  it('answers a button click by someone outside the thread without showing anything', async () => {
    const update = await mention('CA', '5000.0006');
    const blocks = update.args.blocks as { type: string; elements?: { action_id: string; value: string }[] }[];
    const cont = blocks.find((b) => b.type === 'actions')!.elements![0]!;
    const body = actionBody({
      user: 'U7',
      channel: 'CA',
      messageTs: String(update.args.ts),
      threadTs: '5000.0006',
      actionId: cont.action_id,
      value: cont.value,
      responseUrl: h.fake.responseUrl('acc-btn'),
    });
    await deliver(h.port, SECRET, body, 'application/x-www-form-urlencoded');
    const note = await h.fake.waitFor(() => h.fake.callsOf('chat.postEphemeral').find((c) => c.args.user === 'U7'));
    expect(leaks(blocksText(note.args.blocks))).toBe(false);
    expect(blocksText(note.args.blocks)).toMatch(/Only the people who asked/);
  });

  it('/ragask sources lists what the current channel can see', async () => {
    await deliver(
      h.port,
      SECRET,
      commandBody({ text: 'sources', user_id: 'U2', channel_id: 'CB', response_url: h.fake.responseUrl('src-b') }),
      'application/x-www-form-urlencoded',
    );
    await deliver(
      h.port,
      SECRET,
      commandBody({ text: 'sources', user_id: 'U1', channel_id: 'CA', response_url: h.fake.responseUrl('src-a') }),
      'application/x-www-form-urlencoded',
    );
    const b = await h.fake.waitFor(() => h.fake.responses.find((r) => r.id === 'src-b'));
    const a = await h.fake.waitFor(() => h.fake.responses.find((r) => r.id === 'src-a'));
    expect(incidentCount).toBeGreaterThan(0);
    expect(String(b.body.text)).toBe(`This channel can see ${total - incidentCount} documents.`);
    expect(String(a.body.text)).toBe(`This channel can see ${total} documents.`);
    expect(leaks(JSON.stringify(b.body.blocks))).toBe(false);
  });
});
