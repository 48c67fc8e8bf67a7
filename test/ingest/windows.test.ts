import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeWindows, windowEmbeddingText } from '../../src/ingest/windows.js';
import { BertTokenizer } from '../../src/models/tokenizer.js';
import { ROOT } from '../helpers.js';

const tok = BertTokenizer.load(path.join(ROOT, 'models', 'all-MiniLM-L6-v2'));
const text = Array.from(
  { length: 40 },
  (_, i) => `Sentence ${i} says the Vantor TS-40 offset at −20 °C is +0.35 °C.`,
).join(' ');

describe('rerank windows', () => {
  const windows = makeWindows(text, tok, 50, 10);

  it('cuts windows of at most the window size in word pieces, between words', () => {
    expect(windows.length).toBeGreaterThan(5);
    for (const w of windows) {
      expect(w.tokenCount).toBeLessThanOrEqual(50);
      expect(tok.pieces(text.slice(w.charStart, w.charEnd)).length).toBe(w.tokenCount);
      expect(text[w.charStart - 1] ?? ' ').toMatch(/\s/);
      expect(text[w.charEnd] ?? ' ').toMatch(/\s/);
    }
  });

  it('covers the whole chunk, consecutive windows overlapping by up to the overlap', () => {
    expect(windows[0]!.charStart).toBe(0);
    expect(windows.at(-1)!.charEnd).toBe(text.length);
    for (let i = 1; i < windows.length; i++) {
      const prev = windows[i - 1]!;
      const cur = windows[i]!;
      expect(cur.charStart).toBeGreaterThan(prev.charStart);
      expect(cur.charStart).toBeLessThanOrEqual(prev.charEnd + 1);
      const shared = tok.pieces(text.slice(cur.charStart, prev.charEnd)).length;
      expect(shared).toBeLessThanOrEqual(10);
    }
  });

  it('makes one window of a short chunk and none of an empty one', () => {
    expect(makeWindows('Short chunk.', tok, 50, 10)).toEqual([{ ord: 0, charStart: 0, charEnd: 12, tokenCount: 3 }]);
    expect(makeWindows('   ', tok, 50, 10)).toEqual([]);
  });

  it('embeds a window under its document title and heading path', () => {
    expect(windowEmbeddingText('Vantor TS-40', ['Calibration'], 'Add the offset.')).toBe(
      'Vantor TS-40 › Calibration: Add the offset.',
    );
  });
});
