/** Word pieces with their character offsets, as BERT's tokenizer cuts a passage, and windows grouped by length. */
import type { BertTokenizer } from './tokenizer.js';

// BERT's pre-tokenizer splits on whitespace and on every punctuation character (ASCII
// non-alphanumerics and Unicode P*); CJK ideographs are words of their own.
const PUNCT = String.raw`\p{P}!-\/:-@\[-\x60{-~`;

const CJK = String.raw`\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\u{20000}-\u{2a6df}\u{2a700}-\u{2b73f}\u{2b740}-\u{2b81f}\u{2b820}-\u{2ceaf}\u{2f800}-\u{2fa1f}`;

const WORD = new RegExp(`[${PUNCT}]|[${CJK}]|[^\\s${PUNCT}${CJK}]+`, 'gu');

/** Word pieces of a text, each with the character offsets of the word it comes from. */
export interface PiecesWithOffsets {
  ids: number[];
  starts: number[];
  ends: number[];
}

export function piecesWithOffsets(tokenizer: BertTokenizer, text: string): PiecesWithOffsets {
  const out: PiecesWithOffsets = { ids: [], starts: [], ends: [] };
  for (const m of text.matchAll(WORD)) {
    const start = m.index!;
    const end = start + m[0].length;
    for (const id of tokenizer.wordPieces(m[0])) {
      out.ids.push(id);
      out.starts.push(start);
      out.ends.push(end);
    }
  }
  return out;
}

/**
 * Padding a group may carry, as a share of its longest window. Windows are packed to the reader's
 * length, so a read is usually two or three full windows and a short last one; padded to one batch,
 * 17–19 % of the pieces computed were padding (docs/benchmarks-history.md, "The reader's windows without padding").
 */
const MAX_PADDING = 0.1;

/** Windows grouped for one onnxruntime call each: longest first, each group within MAX_PADDING of its longest. */
export function lengthGroups<W extends { ids: readonly unknown[] }>(windows: readonly W[]): W[][] {
  const groups: W[][] = [];
  for (const w of [...windows].sort((a, b) => b.ids.length - a.ids.length)) {
    const last = groups.at(-1);
    if (last && w.ids.length >= (1 - MAX_PADDING) * last[0]!.ids.length) last.push(w);
    else groups.push([w]);
  }
  return groups;
}
