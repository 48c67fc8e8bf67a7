import type { BertTokenizer } from '../models/tokenizer.js';

export interface WindowDraft {
  ord: number;
  charStart: number;
  charEnd: number;
  tokenCount: number;
}

/**
 * ~`size`-token windows over a chunk, cut between words, consecutive windows sharing about
 * `overlap` tokens. Rerank scores a chunk by its best window: the answer usually sits in one sentence.
 */
export function makeWindows(text: string, tokenizer: BertTokenizer, size: number, overlap: number): WindowDraft[] {
  const words: { start: number; end: number; tokens: number }[] = [];
  for (const m of text.matchAll(/\S+/g)) {
    words.push({ start: m.index, end: m.index + m[0].length, tokens: Math.max(1, tokenizer.wordPieces(m[0]).length) });
  }
  if (words.length === 0) return [];
  const out: WindowDraft[] = [];
  let i = 0;
  while (i < words.length) {
    let j = i;
    let n = 0;
    while (j < words.length && (n + words[j]!.tokens <= size || j === i)) n += words[j++]!.tokens;
    out.push({ ord: out.length, charStart: words[i]!.start, charEnd: words[j - 1]!.end, tokenCount: n });
    if (j >= words.length) break;
    // Step back from j while the shared tail stays within `overlap` tokens; always move forward.
    let k = j;
    let shared = 0;
    while (k - 1 > i && shared + words[k - 1]!.tokens <= overlap) shared += words[--k]!.tokens;
    i = k;
  }
  return out;
}

/** What is embedded for a window: its text under the document title and heading path, so that a
 * window saying "it is recalibrated yearly" still knows what "it" is. */
export function windowEmbeddingText(title: string, headingPath: readonly string[], windowText: string): string {
  const context = [title, ...headingPath].filter(Boolean).join(' › ');
  const short = context.length > 160 ? `${context.slice(0, 157)}…` : context;
  return short ? `${short}: ${windowText}` : windowText;
}
