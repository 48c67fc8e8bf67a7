import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { fillerPassage, loadFillerPool, loadScaleQueries, writeFiller } from '../../src/eval/scale.js';
import { tempDir } from '../helpers.js';

// The filler of `ragask bench --scale`: reproducible, never a copy of a window, never standing in
// for a passage of the evaluation corpus.

const dir = tempDir();
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

function readerSet(name: string, contexts: { title: string; text: string }[][]): void {
  fs.mkdirSync(path.join(dir, name), { recursive: true });
  fs.writeFileSync(
    path.join(dir, name, 'reader.jsonl'),
    `${contexts.map((c, i) => JSON.stringify({ id: `${name}-${i}`, question: 'q?', answers: ['a'], contexts: c })).join('\n')}\n`,
  );
}

const sentence = (i: number, topic: string) => `${topic} fact number ${i} was recorded in the year ${1900 + i}.`;
const passage = (title: string) => ({ title, text: [0, 1, 2, 3, 4].map((i) => sentence(i, title)).join(' ') });

readerSet('reader-a', [
  [passage('Alpha'), passage('Beta')],
  [passage('Gamma'), passage('Alpha')],
]);
readerSet('reader-b', [[passage('Delta'), passage('Evaluation Doc')]]);
fs.mkdirSync(path.join(dir, 'hotpotqa-train-100'));

describe('corpus-scale filler', () => {
  it('takes each distinct reader passage once, leaving out the titles of the evaluation corpus', () => {
    const pool = loadFillerPool(dir, new Set(['evaluation doc']));
    expect(pool.map((p) => p.title).sort()).toEqual(['Alpha', 'Beta', 'Delta', 'Gamma']);
    expect(new Set(pool.map((p) => p.id)).size).toBe(pool.length);
  });

  it('is the same on every run, and re-made passages past the pool are new text under a numbered title', () => {
    const a = loadFillerPool(dir, new Set());
    const b = loadFillerPool(dir, new Set());
    expect(a).toEqual(b);
    const made = Array.from({ length: 20 }, (_, k) => fillerPassage(a, k));
    expect(made).toEqual(Array.from({ length: 20 }, (_, k) => fillerPassage(b, k)));
    const texts = new Set(made.map((p) => p.text));
    // past the pool: another round of every passage, titled "(2)", "(3)", …, each text new
    expect(made[a.length]!.title).toBe(`${a[0]!.title} (2)`);
    expect(made[2 * a.length]!.title).toBe(`${a[0]!.title} (3)`);
    expect(texts.size).toBeGreaterThan(a.length + 10);
    for (const p of made.slice(a.length)) {
      expect(p.text.length).toBeGreaterThan(0);
      // built from the sentences of real passages
      for (const s of p.text.split(/(?<=\.)\s+/)) expect(a.some((x) => x.text.includes(s))).toBe(true);
    }
  });

  it('writes a corpus file in the shared format', () => {
    const pool = loadFillerPool(dir, new Set());
    const file = path.join(dir, 'filler.jsonl');
    writeFiller(file, pool, 2, 7);
    const rows = fs
      .readFileSync(file, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { id: string; title: string; text: string });
    expect(rows.map((r) => r.id)).toEqual(['filler-2', 'filler-3', 'filler-4', 'filler-5', 'filler-6']);
    for (const r of rows) expect(Object.keys(r).sort()).toEqual(['id', 'text', 'title']);
  });

  it("takes the recall queries from the reader sets' questions, each once, in a seeded order", () => {
    const qs = loadScaleQueries(dir, 10);
    expect(qs).toEqual(['q?']);
    expect(loadScaleQueries(dir, 0)).toEqual([]);
  });
});
