import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decide, Reader, } from '../../src/models/reader.js';
import { BertTokenizer } from '../../src/models/tokenizer.js';
import type { ReaderWindow } from '../../src/models/reader-types.js';
import { lengthGroups, piecesWithOffsets } from '../../src/models/reader-pieces.js';

const MODELS = path.resolve('models');
let reader: Reader;
beforeAll(async () => {
  reader = await Reader.load({ modelsDir: MODELS, model: 'reader-minilm', variant: 'int8', threads: 2 });
});
afterAll(() => reader.release());

interface GoldenCase {
  question: string;
  passages: { title: string; text: string }[];
  windows: number[][];
  types: number[][];
  answer: { kind: string; text: string; p_answer: number };
  window_probs: number[][];
  /** PyTorch's best span of the deciding window, and its lead in logits over the next other text. */
  best_span: string;
  span_margin: number;
}
const golden = JSON.parse(fs.readFileSync(path.resolve('test/fixtures/reader-golden.json'), 'utf8')) as GoldenCase[];

describe('reader input: word pieces with offsets, windows as the training script builds them', () => {
  it('gives the tokenizer\'s own pieces for any text, each with the offsets of its word', () => {
    const tok = BertTokenizer.load(path.join(MODELS, 'all-MiniLM-L6-v2'));
    const texts = [
      'Gdańsk — Malmö: “quotes” ½ °C −20, and (nested [brackets]).',
      '日本語のテキスト 北京 e\u0301 tab\there zero\u200bwidth',
      "Temperature: −20 °C; Offset: +0.35 °C; Part no. FC-3/B_7's",
      ...golden.flatMap((g) => [g.question, ...g.passages.map((p) => p.text)]),
    ];
    for (const t of texts) {
      const p = piecesWithOffsets(tok, t);
      expect(p.ids).toEqual(tok.pieces(t));
      for (let i = 0; i < p.ids.length; i++) {
        const word = t.slice(p.starts[i], p.ends[i]);
        expect(word.trim()).toBe(word);
        expect(word.length).toBeGreaterThan(0);
      }
    }
  });

  it('builds the same windows, piece for piece, as scripts/train_reader.py (long passages in overlapping pieces)', () => {
    expect(golden.some((g) => g.windows.length > 1)).toBe(true);
    for (const g of golden) {
      const ws = reader.windows(g.question, g.passages);
      expect(ws.map((w) => w.ids)).toEqual(g.windows);
      expect(ws.map((w) => w.types)).toEqual(g.types);
    }
  });
});

describe('reader on the real model', () => {
  it('reads what the training script read on the golden cases whose decision is clear (int8 here and there, other CPUs)', async () => {
    let compared = 0;
    for (const g of golden) {
      const probs = g.window_probs.map((p) => ({ answer: 1 - p[3]!, kind: Math.max(p[0]!, p[1]!, p[2]!) / Math.max(1e-9, p[0]! + p[1]! + p[2]!) }));
      const best = probs.reduce((a, b) => (b.answer > a.answer ? b : a));
      // int8 kernels differ across CPUs and from PyTorch's fp32: only decisions well away from their
      // edge are asserted (answer or not by 0.25, the kind by 0.2, the span by 1.5 logits)
      const r = await reader.read(g.question, g.passages);
      if (Math.abs(best.answer - 0.5) >= 0.25) {
        compared++;
        expect(r.pAnswer >= 0.5).toBe(best.answer >= 0.5);
      }
      if (best.answer >= 0.75 && best.kind >= 0.7) {
        expect(r.kind).toBe(g.answer.kind);
        if (g.answer.kind === 'span' && g.span_margin >= 1.5) expect(r.span!.text).toBe(g.best_span);
      }
    }
    expect(compared).toBeGreaterThanOrEqual(4);
  });

  it('returns a span with its character offsets in the passage it was read from', async () => {
    const passages = [
      { title: 'Lake Varen', text: 'Lake Varen is a glacial lake in the Tatra foothills. Its deepest point, 64 metres, was measured in 1931 by the hydrologist Emil Dobrowski.' },
      { title: 'Tatra foothills', text: 'The Tatra foothills are a hilly region in southern Poland with many small glacial lakes.' },
    ];
    const r = await reader.read('Who measured the deepest point of Lake Varen?', passages);
    expect(r.kind).toBe('span');
    expect(r.pAnswer).toBeGreaterThan(0.7);
    const s = r.span!;
    expect(passages[s.passage]!.text.slice(s.start, s.end)).toBe(s.text);
    expect(s.text).toMatch(/Emil Dobrowski$/);
  });

  it('keeps an answer in a table row inside one cell value', async () => {
    const text = 'Name: Mirela Ostrowski; Role: Project lead, Falcon; Office: Tromsø';
    const cells: [number, number][] = [[6, 22], [30, 50], [60, 66]];
    expect(cells.map(([a, b]) => text.slice(a, b))).toEqual(['Mirela Ostrowski', 'Project lead, Falcon', 'Tromsø']);
    for (const q of ['In which office does Mirela Ostrowski work?', 'Who is the project lead of Falcon?']) {
      const r = await reader.read(q, [{ title: 'People directory', text, answerRanges: cells }]);
      for (const w of r.windows) for (const s of w.spans) expect(cells.some(([a, b]) => a <= s.start && s.end <= b)).toBe(true);
    }
  });

  it('scores each candidate range whole, beside its own best spans, whatever its logits', async () => {
    const text = 'The MaxKeepAliveRequests directive limits the number of requests allowed per connection. If it is set to 0, unlimited requests will be allowed. Default: 100.';
    const ranges: [number, number][] = [[text.indexOf('0,'), text.indexOf('0,') + 1], [text.indexOf('100'), text.indexOf('100') + 3]];
    const q = 'How many requests are allowed per connection?';
    const plain = await reader.read(q, [{ title: 'Core', text }], { spansPerWindow: 1 });
    const offered = await reader.read(q, [{ title: 'Core', text, candidateRanges: ranges }], { spansPerWindow: 1 });
    const texts = (r: typeof plain) => r.windows.flatMap((w) => w.spans.map((s) => s.text));
    expect(texts(plain)).toHaveLength(1);
    expect(texts(offered)).toEqual(expect.arrayContaining(['0', '100']));
    for (const s of offered.windows.flatMap((w) => w.spans)) expect(text.slice(s.start, s.end)).toBe(s.text);
  });

  it('answers yes or no when the question asks for it, from both passages side by side', async () => {
    const passages = [
      { title: 'Marta Keel', text: 'Marta Keel (1902–1977) was a Swiss painter known for her alpine landscapes.' },
      { title: 'Oskar Brandt', text: 'Oskar Brandt (1899–1960) was a German painter and printmaker.' },
    ];
    const same = await reader.read('Were Marta Keel and Oskar Brandt both painters?', passages);
    expect(['yes', 'no']).toContain(same.kind);
    const w = same.windows[same.window]!;
    expect(w.probs.yes + w.probs.no).toBeGreaterThan(w.probs.span);
  });

  it('reads a long and a short window in separate calls, each as it reads alone', async () => {
    const long = {
      title: 'Lake Varen',
      text: Array.from({ length: 40 }, (_, i) => `Survey ${i + 1} of Lake Varen measured its depth again.`).join(' '),
    };
    const short = { title: 'Emil Dobrowski', text: 'Emil Dobrowski was a hydrologist who measured Lake Varen in 1931.' };
    const q = 'Who measured Lake Varen in 1931?';
    const both = await reader.read(q, [long, short]);
    expect(both.windows.length).toBeGreaterThanOrEqual(2);
    const alone = await reader.read(q, [short]);
    const last = both.windows.at(-1)!;
    expect(last.passages).toEqual([1]);
    // the same window, whether read beside a longer one or alone (int8 kernels may differ in the last digits)
    expect(last.probs.none).toBeCloseTo(alone.windows[0]!.probs.none, 2);
    expect(last.spans[0]!.text).toBe(alone.windows[0]!.spans[0]!.text);
  });

  it('says the passages do not answer a question they have nothing on', async () => {
    const r = await reader.read('What is the capital of Peru?', [
      { title: 'Kestrel Dynamics', text: 'Kestrel Dynamics builds environmental sensing drones. Its main office is in Gdańsk and it has a lab in Malmö.' },
    ]);
    // declined: the decision edge is 0.5 (measured 0.33 with the shipped int8 reader)
    expect(r.pAnswer).toBeLessThan(0.5);
  });
});

describe('windows grouped for one call each', () => {
  const w = (n: number) => ({ ids: Array.from({ length: n }, () => 0) });
  it('puts windows of about one length together, longest first, and a short one apart', () => {
    const groups = lengthGroups([w(380), w(120), w(384), w(350)]).map((g) => g.map((x) => x.ids.length));
    expect(groups).toEqual([[384, 380, 350], [120]]);
    expect(lengthGroups([])).toEqual([]);
  });
});

describe('the decision over windows', () => {
  const w = (none: number, yes: number, no: number, spans: string[] = []): ReaderWindow => ({
    passages: [0],
    probs: { span: 1 - none - yes - no, yes, no, none },
    spans: spans.map((text, i) => ({ passage: 0, start: 0, end: text.length, text, score: 10 - i, window: 0 })),
  });

  it('takes the window that most believes it answers, and its most likely kind', () => {
    const d = decide([w(0.9, 0, 0, ['far']), w(0.2, 0.05, 0.05, ['near', 'next'])]);
    expect(d.window).toBe(1);
    expect(d.kind).toBe('span');
    expect(d.span!.text).toBe('near');
    expect(d.pAnswer).toBeCloseTo(0.8, 9);
    expect(decide([w(0.1, 0.6, 0.2)]).kind).toBe('yes');
    expect(decide([]).kind).toBe('none');
  });
});
