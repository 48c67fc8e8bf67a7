import type { Answer, EngineResult } from '../engine/types.js';
import { answerEM, normalizeAnswer } from '../engine/answer/normalize.js';
import { containsAnswer } from './metrics.js';
import { shownLine } from '../engine/answer/lines.js';

/**
 * What a person reads of a reply, in the order the reply shows it (src/slack/blocks/answer.ts and
 * src/cli/render.ts): the short answer, then the quoted sentences — the answer's sentence (or, with
 * no short answer, the leads), the other sources of a conflict, then the chain of evidence.
 */
export interface ShownReply {
  /** The short answer; null when the reply gives none. */
  value: string | null;
  /** The quoted sentences, first shown first. */
  lines: string[];
  /** The reply stops for a person, with suggestions to click. */
  stoppedForPerson: boolean;
}

export function shownReply(r: Pick<EngineResult, 'answer' | 'stopReason' | 'suggestions'>): ShownReply {
  return {
    value: r.answer.value,
    lines: shownLines(r.answer),
    stoppedForPerson: r.stopReason === 'low_coherence' && r.suggestions.length > 0,
  };
}

function shownLines(a: Answer): string[] {
  const lines: string[] = [];
  const add = (s: string | null | undefined) => {
    if (s && !lines.includes(s)) lines.push(s);
  };
  if (a.value !== null) add(a.source ? shownLine({ ...a.source, text: a.sentence ?? a.source.text }) : a.sentence);
  else for (const s of a.leads.slice(0, 3)) add(shownLine(s));
  for (const c of a.conflicts) for (const v of c.values) add(shownLine(v.snippet));
  for (const s of a.chain) add(shownLine(s));
  return lines;
}

/** A short answer may say a little more than the gold ("8190 bytes" for "8190"), not a sentence. */
const EXTRA_WORDS = 5;

const wordsOf = (s: string) => normalizeAnswer(s).split(' ').filter(Boolean).length;

/**
 * Whether a short answer is right: the gold answer exactly (HotpotQA normalisation), or the gold
 * answer as whole words in a short answer at most EXTRA_WORDS words longer ("8190 bytes" for
 * "8190"; "81900" is not "8190").
 */
export function answerRight(value: string | null, golds: readonly string[]): boolean {
  if (value === null || golds.length === 0) return false;
  return golds.some(
    (g) => answerEM(value, g) === 1 || (containsAnswer(value, [g]) && wordsOf(value) <= wordsOf(g) + EXTRA_WORDS),
  );
}

/** The gold answer is visible within the first `k` quoted lines shown (or in the short answer). */
export function visibleAt(shown: ShownReply, golds: readonly string[], k: number): boolean {
  if (!golds.length) return false;
  if (shown.value !== null && containsAnswer(shown.value, golds)) return true;
  return shown.lines.slice(0, k).some((l) => containsAnswer(l, golds));
}
