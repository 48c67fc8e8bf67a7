import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gapQuestions, groupByTopic, topicVectors } from '../../src/engine/gaps.js';
import { Encoder } from '../../src/models/encoder.js';
import { openSlackState } from '../../src/slack/state/open.js';
import { ROOT, SAMPLE_DIR, tempDir } from '../helpers.js';
import { result } from '../fixtures/results.js';
import { runCli } from './run-cli.js';

let dir: string;
const ragask = (args: string[]) => runCli(path.join(dir, 'data'), args);

/** Questions of three topics a team might ask and the documents do not answer, three phrasings each. */
const TOPICS = [
  [
    'How do I get VPN access from home?',
    'the vpn client will not connect from my flat',
    'who approves remote VPN accounts?',
  ],
  [
    'How many weeks of parental leave do we get?',
    'is paternity leave paid in full?',
    'parental leave policy for new fathers',
  ],
  [
    'Which printer on floor 3 does colour?',
    'the third floor printer keeps jamming',
    'how do I add the floor 3 printer on a Mac?',
  ],
];

beforeAll(async () => {
  dir = tempDir();
  expect((await ragask(['ingest', SAMPLE_DIR])).code).toBe(0);
  // questions as Slack recorded them: declined (no short answer) in a channel and in a DM, one answered
  let t = Date.now() - 3_600_000;
  const state = await openSlackState({ dataDir: path.join(dir, 'data'), databaseUrl: null }, 86_400_000, () => ++t);
  const answered = result({ question: 'Who leads Falcon?' });
  const declined = { ...answered, answer: { ...answered.answer, value: null } };
  let ts = 1;
  for (const [k, phrasings] of TOPICS.entries())
    for (const q of phrasings)
      await state.threads.addTurn('C1', `${k}.${ts}`, {
        user: 'U1',
        question: q,
        messageTs: `${k}.${++ts}`,
        result: declined,
      });
  await state.threads.addTurn('D9', '9.1', {
    user: 'U9',
    question: 'Can I expense a standing desk?',
    messageTs: '9.2',
    result: declined,
  });
  await state.threads.addTurn('C1', '8.1', {
    user: 'U1',
    question: 'Who leads Falcon?',
    messageTs: '8.2',
    result: answered,
  });
  await state.close();
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('the gap report', () => {
  it('keeps the questions without a definite answer and those marked not helpful', () => {
    const base = { channel: 'C1', user: 'U1', askedAt: 1 };
    expect(
      gapQuestions([
        { ...base, question: 'a', answer: null, feedback: null },
        { ...base, question: 'b', answer: 'x', feedback: null },
        { ...base, question: 'c', answer: 'x', feedback: { value: 'not_helpful' } },
        { ...base, question: 'd', answer: 'x', feedback: { value: 'helpful' } },
      ]).map((q) => [q.question, q.why]),
    ).toEqual([
      ['a', 'no definite answer'],
      ['c', 'marked not helpful'],
    ]);
  });

  it('groups questions by topic with the encoder', async () => {
    const encoder = await Encoder.load({
      modelsDir: path.join(ROOT, 'models'),
      model: 'all-MiniLM-L6-v2',
      variant: 'int8',
      threads: 1,
    });
    try {
      // nine questions: centred on their own mean, as the report groups them
      const nine = topicVectors(await encoder.encode(TOPICS.flat()));
      const of = groupByTopic(nine.vectors, nine.threshold);
      // the same group within a topic, different groups across topics
      expect(TOPICS.map((_, k) => new Set(of.slice(3 * k, 3 * k + 3)).size)).toEqual([1, 1, 1]);
      expect(new Set(of).size).toBe(3);
      // a report too small to centre groups its raw vectors: two questions of one topic stay together
      const two = topicVectors(await encoder.encode(TOPICS[0]!.slice(0, 2)));
      expect(groupByTopic(two.vectors, two.threshold)).toEqual([0, 0]);
    } finally {
      await encoder.release();
    }
  });

  it("lists a channel's gaps grouped, never a DM's; a DM's only to its asker or with --all", async () => {
    const channel = await ragask(['gaps', '--channel', 'C1', '--json']);
    expect(channel.code).toBe(0);
    const groups = JSON.parse(channel.out) as { count: number; questions: { question: string }[] }[];
    expect(groups.map((g) => g.count)).toEqual([3, 3, 3]);
    expect(channel.out).not.toContain('standing desk');
    expect(channel.out).not.toContain('Who leads Falcon?');
    const dm = JSON.parse((await ragask(['gaps', '--user', 'U9', '--json'])).out) as { examples: string[] }[];
    expect(dm.map((g) => g.examples)).toEqual([['Can I expense a standing desk?']]);
    expect((await ragask(['gaps', '--user', 'U1', '--json'])).out.trim()).toBe('[]');
    const all = JSON.parse((await ragask(['gaps', '--all', '--json'])).out) as { count: number }[];
    expect(all.map((g) => g.count)).toEqual([3, 3, 3, 1]);
    expect((await ragask(['gaps', '--all', '--save'])).code).toBe(0);
    const partial = await ragask(['gaps', '--channel', 'C1', '--save']);
    expect(partial.err.trim()).toBe(
      'ragask: ragask gaps --save keeps the report of every channel and DM: use it with --all',
    );
    const none = await ragask(['gaps', '--since', 'soon', '--all']);
    expect(none.code).not.toBe(0);
    expect(none.err.trim().split('\n')[0]).toContain('--since must be hours or days, such as 24h or 7d (got "soon")');
  });
});
