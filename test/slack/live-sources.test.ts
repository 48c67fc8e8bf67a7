import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deliver, eventBody } from '../support/slack-stand-in.js';
import { SECRET, startHarness, type Harness } from './harness.js';

// While serve runs, the threads of RAGASK_SLACK_SOURCES channels follow what people write: a reply,
// an edit and a deletion reach the thread's document (and the index) within seconds.

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ ingestSample: false, overrides: { RAGASK_SLACK_SOURCES: 'CENG' } });
  h.fake.users.set('U1', 'alice');
  h.fake.channels.set('CENG', {
    name: 'eng',
    isPrivate: false,
    member: true,
    messages: [{ ts: '1000.000100', user: 'U1', text: 'The VPN moved to vpn-b.example.net.' }],
  });
});
afterAll(() => h.close());

const SOURCE = 'slack:CENG/1000.000100';
const send = (event: Record<string, unknown>) =>
  deliver(h.port, SECRET, eventBody({ channel: 'CENG', ...event }).body, 'application/json');

/** The stored text of the thread's document, or null when there is none. */
async function storedText(): Promise<string | null> {
  const doc = await h.core.store.documents.getDocumentBySource(SOURCE);
  if (!doc) return null;
  return (await h.core.store.documents.chunksOfDocument(doc.id)).map((c) => c.text).join('\n');
}

describe('Slack channels as live sources', () => {
  it('adds a reply, applies an edit and removes a deleted thread from the store and the index', async () => {
    const messages = h.fake.channels.get('CENG')!.messages;
    const reply = { ts: '1000.000200', user: 'U1', text: 'Also: vpn-b asks for MFA codes.', thread_ts: '1000.000100' };
    messages.push(reply);
    await send({ type: 'message', user: 'U1', text: reply.text, ts: reply.ts, thread_ts: reply.thread_ts });
    await h.fake.waitFor(async () => (await storedText())?.includes('MFA codes'), 20_000, 'the reply in the store');
    const doc = (await h.core.store.documents.getDocumentBySource(SOURCE))!;
    expect(doc.scope).toEqual({ kind: 'channels', channels: ['CENG'] });
    expect(await storedText()).toMatch(/alice \(.*\): The VPN moved/);

    reply.text = 'Also: vpn-b asks for hardware keys.';
    await send({ type: 'message', subtype: 'message_changed', message: { ...reply }, ts: '1000.000300' });
    await h.fake.waitFor(async () => (await storedText())?.includes('hardware keys'), 20_000, 'the edit in the store');
    expect(await storedText()).not.toContain('MFA codes');

    // a message in a channel that is not a source changes nothing
    await send({
      type: 'message',
      channel: 'COTHER',
      user: 'U1',
      text: 'The printer is on floor 3.',
      ts: '1001.000100',
    });

    messages.splice(0);
    await send({
      type: 'message',
      subtype: 'message_deleted',
      deleted_ts: '1000.000100',
      previous_message: { ts: '1000.000100' },
    });
    await h.fake.waitFor(async () => (await storedText()) === null, 20_000, 'the thread gone from the store');
    await h.fake.waitFor(() => h.slack.service.sourcesIdle, 20_000, 'the source sync idle');
    const found = await h.core.engine.run('Which keys does the VPN ask for?', { kind: 'local' });
    expect(found.evidence.some((s) => s.citation.source.startsWith('slack:'))).toBe(false);
    expect((await h.core.store.documents.listDocuments()).map((d) => d.source)).toEqual([]);
  });
});
