import { afterEach, describe, expect, it } from 'vitest';
import { checkWritten, splitWritten, valuesOf, type SupportJudge } from '../../src/engine/writer/check.js';
import { openAIChat } from '../../src/engine/writer/client.js';
import { answerWriter, isWritten } from '../../src/engine/writer/index.js';
import type { WriterSettings } from '../../src/engine/writer/types.js';
import type { Snippet } from '../../src/engine/types.js';
import { createLogger } from '../../src/log.js';
import { FakeLlm, type Scripted } from '../support/llm-stand-in.js';

// The optional answer writer: every written sentence is checked against what it cites before it is
// shown, and a writer that fails leaves the extractive reply. Phrasing written for these tests.

const snippet = (document: string, text: string, headings: string[] = []): Snippet => ({
  chunkId: 1,
  docId: 1,
  windowId: null,
  text,
  score: 1,
  citation: { document, source: `/d/${document}.md`, heading_path: headings, page: null, url: null },
});

const EVIDENCE: Snippet[] = [
  snippet('Relay station', 'The relay flushes its buffer every 30 s. Set `flush_interval` to change it.', ['Tuning']),
  snippet('Power', 'The backup battery of the KX-220 lasts 90 days.'),
];

/** A judge that finds every sentence supported as well as `score`. */
const judge = (score: number): SupportJudge => ({ similarity: async () => score });

describe('checking written sentences', () => {
  it('splits sentences with the citations that follow them, a citation alone joining the one before', () => {
    expect(splitWritten('The buffer is flushed every 30 s [1]. It lasts 90 days. [2]')).toEqual([
      { text: 'The buffer is flushed every 30 s [1].', citations: [1] },
      { text: 'It lasts 90 days [2].', citations: [2] },
    ]);
    // citations after the full stop, on a new line: each still goes with its sentence
    expect(splitWritten('The offset is +0.35 °C. [1] Maintenance ran at 10:30.\n[2]')).toEqual([
      { text: 'The offset is +0.35 °C [1].', citations: [1] },
      { text: 'Maintenance ran at 10:30 [2].', citations: [2] },
    ]);
  });

  it('finds the values a sentence states: numbers with their units, code tokens, names', () => {
    expect(valuesOf('Set `flush_interval` to 30 s on the KX-220 at Gdańsk Office [1].')).toEqual([
      '30 s',
      'flush_interval',
      'KX-220',
      'Gdańsk Office',
    ]);
  });

  it('keeps a cited, supported sentence whose values stand in its source, and says why it drops the others', async () => {
    const text = [
      'The relay flushes its buffer every 30s [1].',
      'The battery lasts 90 days.',
      'The battery lasts 90 days [3].',
      'The relay flushes every 45 s [1].',
      'The relay flushes its buffer every 30 ms [1].',
      'Use `buffer_size` to change it [1].',
      'The backup battery of the KX-220 lasts 90 days [2].',
    ].join(' ');
    const checked = await checkWritten(text, EVIDENCE, judge(0.9), 0.6);
    expect(checked.map((s) => [s.kept, s.reason, s.detail])).toEqual([
      [true, null, null],
      [false, 'no_citation', null],
      [false, 'bad_citation', '[3]'],
      [false, 'value_not_in_source', '45 s'],
      [false, 'value_not_in_source', '30 ms'],
      [false, 'value_not_in_source', 'buffer_size'],
      [true, null, null],
    ]);
  });

  it('reads a sign, a whole date, a time and a whole token', async () => {
    const evidence = [
      snippet(
        'Sensor',
        'The offset at −20 °C is +0.35 °C. Maintenance ran on 2024-05-01 at 10:30. Send Cache-Control: no-cache.',
      ),
    ];
    const checked = await checkWritten(
      [
        'The offset at −20 °C is -0.35 °C [1].',
        'Maintenance ran on 2024-01-05 [1].',
        'It ran at 10 [1].',
        'Set `cache` [1].',
        'The offset at −20 °C is +0.35 °C. [1]',
        'Maintenance ran on 2024-05-01 at 10:30. [1]',
      ].join(' '),
      evidence,
      judge(0.9),
      0.6,
    );
    expect(checked.map((c) => [c.kept, c.reason, c.detail])).toEqual([
      [false, 'value_not_in_source', '-0.35'],
      [false, 'value_not_in_source', '2024-01-05'],
      [false, 'value_not_in_source', '10'],
      [false, 'value_not_in_source', 'cache'],
      [true, null, null],
      [true, null, null],
    ]);
  });

  it('drops a sentence whose content its source does not support, with the support it had', async () => {
    const [s] = await checkWritten('The relay is painted green [1].', EVIDENCE, judge(0.31), 0.6);
    expect(s).toMatchObject({ kept: false, reason: 'not_supported', support: 0.31 });
  });
});

const running: FakeLlm[] = [];
afterEach(async () => {
  for (const s of running.splice(0)) await s.stop();
});

async function writerOn(script: Scripted[], overrides: Partial<WriterSettings> = {}) {
  const llm = new FakeLlm(script);
  await llm.start();
  running.push(llm);
  const logs: string[] = [];
  const log = createLogger({
    level: 'debug',
    destination: { write: (l: string) => logs.push(l) } as unknown as NodeJS.WritableStream,
  });
  const settings: WriterSettings = {
    url: llm.url,
    model: llm.model,
    apiKey: 'sk-test-key-7',
    timeoutMs: 10_000,
    maxTokens: 200,
    ...overrides,
  };
  const writer = answerWriter({ client: openAIChat(settings), judge: judge(0.9), settings, log, threshold: 0.6 });
  return { llm, writer, logs };
}

const INPUT = { question: 'How often does the relay flush its buffer?', evidence: EVIDENCE, previous: null };
const GOOD = 'The relay flushes its buffer every 30 s [1]. The buffer size is 12 MB [1].';

describe('the answer writer on an OpenAI-compatible endpoint (a stand-in on 127.0.0.1)', () => {
  it('streams a draft, then shows only the sentences that pass, from a prompt of the numbered evidence', async () => {
    const { llm, writer, logs } = await writerOn([{ reply: GOOD }]);
    const drafts: string[] = [];
    const w = await writer.write(INPUT, (d) => drafts.push(d));
    expect(isWritten(w)).toBe(true);
    if (!isWritten(w)) return;
    expect(w.text).toBe('The relay flushes its buffer every 30 s [1].');
    expect(w.sentences.map((s) => [s.kept, s.reason])).toEqual([
      [true, null],
      [false, 'value_not_in_source'],
    ]);
    expect(drafts.length).toBeGreaterThan(3);
    expect(drafts.at(-1)).toBe(GOOD);
    const [request] = llm.requests;
    expect(request!.authorization).toBe('Bearer sk-test-key-7');
    expect(request!.body.messages[1]!.content).toContain(
      '[1] Relay station › Tuning\nThe relay flushes its buffer every 30 s.',
    );
    expect(request!.body.messages[1]!.content).toContain('[2] Power\n');
    expect(logs.join('')).not.toContain('sk-test-key-7');
  });

  it('waits out a 429 and writes', async () => {
    const { llm, writer } = await writerOn([{ status: 429 }, { reply: GOOD }]);
    const w = await writer.write(INPUT);
    expect(isWritten(w) && w.text).toBe('The relay flushes its buffer every 30 s [1].');
    expect(llm.requests).toHaveLength(2);
  });

  it('leaves the reply extractive on a 5xx, a broken stream, a slow model or nothing kept, with one log line each', async () => {
    const cases: [Scripted[], Partial<WriterSettings>, string][] = [
      [[{ status: 503 }], {}, 'server_error'],
      [[{ malformed: true }], {}, 'malformed'],
      [[{ reply: GOOD, chunkDelayMs: 400 }], { timeoutMs: 1000 }, 'timeout'],
      [[{ reply: 'The relay is blue.' }], {}, 'nothing_kept'],
      [[{ status: 401 }], {}, 'refused'],
    ];
    for (const [script, overrides, failed] of cases) {
      const { writer, logs } = await writerOn(script, overrides);
      const w = await writer.write(INPUT);
      expect(isWritten(w) ? 'written' : w.failed).toBe(failed);
      const lines = logs.filter((l) => l.includes('writer:'));
      expect(lines).toHaveLength(1);
      expect(lines[0]).not.toContain('sk-test-key-7');
      expect(lines[0]).not.toContain('relay flushes');
    }
  }, 30_000);
});
