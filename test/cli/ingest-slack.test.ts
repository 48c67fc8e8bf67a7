import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeSlack } from '../support/slack-stand-in.js';
import { tempDir } from '../helpers.js';
import { runCli } from './run-cli.js';

// `ragask ingest --slack`: channel history through the Web API (the stand-in on 127.0.0.1), each
// thread a document cited by its permalink, scoped to its channel, read again only where it is new.

let dir: string;
let fake: FakeSlack;
const ragask = (args: string[]) =>
  runCli(path.join(dir, 'data'), args, {
    SLACK_BOT_TOKEN: 'xoxb-1-stand-in-token',
    RAGASK_SLACK_API_URL: fake.apiUrl,
    RAGASK_SLACK_RATE_LIMITS: 'off',
  });

beforeAll(async () => {
  dir = tempDir();
  fake = new FakeSlack();
  await fake.start();
  fake.historyPage = 2; // three pages of roots below
  fake.users.set('U1', 'alice').set('U2', 'bob');
  fake.channels.set('CENG', {
    name: 'eng',
    isPrivate: false,
    member: true,
    messages: [
      { ts: '1000.000100', user: 'U1', text: 'Heads up: the VPN moved to vpn-b.example.net last week.' },
      { ts: '1000.000200', user: 'U2', text: 'Does the old vpn-a host still answer?', thread_ts: '1000.000100' },
      { ts: '1000.000300', user: 'U1', text: 'No, vpn-a was switched off on Monday.', thread_ts: '1000.000100' },
      { ts: '1001.000100', user: 'U2', text: 'The staging database is restored every night at 02:00.' },
      { ts: '1002.000100', bot_id: 'B1', subtype: 'bot_message', text: 'Deploy 4812 finished' },
      { ts: '1003.000100', user: 'UBOT', text: 'I could not find a definite answer.' },
      { ts: '1004.000100', user: 'U1', subtype: 'channel_join', text: '<@U1> has joined the channel' },
    ],
  });
  fake.channels.set('CSEC', {
    name: 'security',
    isPrivate: true,
    member: true,
    messages: [{ ts: '2000.000100', user: 'U2', text: 'The break-glass password lives in the red envelope.' }],
  });
  fake.channels.set('CNOT', { name: 'random', isPrivate: false, member: false, messages: [] });
});
afterAll(async () => {
  await fake.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

interface Listed {
  source: string;
  title: string;
  scope: string;
}
const listed = async () => JSON.parse((await ragask(['sources', 'list', '--json'])).out) as Listed[];

describe('ingest --slack', () => {
  it('reads a channel page by page through a 429, one document per thread, never a bot message', async () => {
    fake.rateLimit('conversations.history', 1, 1);
    const r = await ragask(['ingest', '--slack', 'CENG']);
    // the 429 is logged as a warning, nothing worse
    expect(r.err).not.toMatch(/"level":[56]0/);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/#eng \(CENG\): 2 new or changed thread\(s\) read; ingested 2 new/);
    // the 429 was waited out and the call made again: three pages of roots; the thread's three messages in two pages
    expect(fake.callsOf('conversations.history').length).toBe(4);
    expect(fake.callsOf('conversations.replies').length).toBe(2);
    const docs = (await listed()).filter((d) => d.source.startsWith('slack:CENG/'));
    expect(docs.map((d) => [d.source, d.scope])).toEqual([
      ['slack:CENG/1000.000100', 'channel:CENG'],
      ['slack:CENG/1001.000100', 'channel:CENG'],
    ]);
    expect(docs[0]!.title).toBe('#eng: Heads up: the VPN moved to vpn-b.example.net last…');
  });

  it('answers from a thread in its channel only, with the author and the permalink', async () => {
    const ask = async (channel: string) =>
      JSON.parse(
        (await ragask(['ask', 'Who said the VPN moved, and where to?', '--channel', channel, '--json'])).out,
      ) as {
        evidence: { snippet: string; citation: { source: string; url: string | null } }[];
      };
    const inEng = (await ask('CENG')).evidence.find((e) => e.citation.source === 'slack:CENG/1000.000100')!;
    expect(inEng.citation.url).toBe('https://test.slack.com/archives/CENG/p1000000100');
    expect(inEng.snippet).toMatch(/alice \(1970-01-01 00:16\)/);
    const elsewhere = await ask('CGENERAL');
    expect(elsewhere.evidence.some((e) => e.citation.source.startsWith('slack:'))).toBe(false);
  });

  it('reads only what is new on the next run', async () => {
    const before = fake.callsOf('conversations.history').length;
    expect((await ragask(['ingest', '--slack', 'CENG'])).out).toMatch(/0 new or changed thread\(s\) read/);
    const asked = fake.callsOf('conversations.history').slice(before);
    expect(asked.map((c) => c.args.oldest)).toEqual(['1004.000100']);
    fake.channels.get('CENG')!.messages.push({ ts: '1005.000100', user: 'U2', text: 'Lunch is at noon on Fridays.' });
    expect((await ragask(['ingest', '--slack', 'CENG'])).out).toMatch(
      /1 new or changed thread\(s\) read; ingested 1 new/,
    );
  });

  it('refuses --scope public for a private channel, and names the fix for a channel it is not in', async () => {
    const pub = await ragask(['ingest', '--slack', 'CSEC', '--scope', 'public']);
    expect(pub.code).not.toBe(0);
    expect(pub.err.trim().split('\n')).toHaveLength(1);
    expect(pub.err).toMatch(/--scope public: #security \(CSEC\) is private/);
    // refused before any of its history is read
    expect(fake.callsOf('conversations.history').some((c) => c.args.channel === 'CSEC')).toBe(false);
    expect((await listed()).some((d) => d.source.startsWith('slack:CSEC/'))).toBe(false);
    // its own scope by default
    expect((await ragask(['ingest', '--slack', 'CSEC'])).code).toBe(0);
    expect((await listed()).find((d) => d.source.startsWith('slack:CSEC/'))!.scope).toBe('channel:CSEC');
    // a private channel's thread answers in that channel only: never in another, never in a DM
    const where = async (...context: string[]) =>
      (await ragask(['ask', 'Where does the break-glass password live?', ...context, '--json'])).out;
    expect(await where('--channel', 'CSEC')).toContain('slack:CSEC/');
    expect(await where('--channel', 'CENG')).not.toContain('slack:CSEC/');
    expect(await where('--user', 'U2', '--dm')).not.toContain('slack:CSEC/');

    const notIn = await ragask(['ingest', '--slack', 'CNOT']);
    expect(notIn.code).not.toBe(0);
    expect(notIn.err).toMatch(/--slack CNOT: ragask is not in this channel .*\/invite @ragask/);
    const bad = await ragask(['ingest', '--slack', 'general']);
    expect(bad.err).toMatch(/--slack: expected channel ids/);
  });
});
