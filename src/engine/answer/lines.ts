/**
 * Which line a person reads first. Every sentence of the passages the reader read is a candidate,
 * described by what the reading and the retrieval say of it, and ranked by a logistic regression
 * fitted to "this line holds the answer" on the tuning sets (`ragask calibrate --lines`; constants
 * in lines.fitted.ts, its leave-one-set-out figures in docs/benchmarks-history.md). Learned, not written from
 * any question's wording: the features are the reader's spans, the retrieval rank and score, how
 * much of the question the line and its entry cover, and where the line stands in its passage.
 */
import { sentencesOf } from '../../models/nlp.js';
import { predict, type LogisticModel } from '../logistic.js';
import { evidenceCoverage } from '../text.js';
import { expectedType, typedRanges } from './answer-type.js';
import type { Snippet } from '../types.js';
import type { EvidencePassage } from './passages.js';

/** A span the reader scored: where it stands and its score as the reading ranked it. */
export interface SpanScore {
  passage: number;
  start: number;
  end: number;
  score: number;
}

export const LINE_FEATURES = [
  'span_score',
  'has_span',
  'chosen',
  'span_rank',
  'passage_rank',
  'retrieval',
  'coverage',
  'context_coverage',
  'in_snippet',
  'first_sentence',
  'length',
  'entry',
  'typed',
  'untyped',
  'cosine',
] as const;

/** A sentence a person may read first, with what ranks it. */
export interface LineCandidate {
  /** The sentence as a snippet of its passage (the citation stays the passage's). */
  snippet: Snippet;
  /** The passage it was read from (an index of the passages read) and its character range there. */
  passage: number;
  start: number;
  end: number;
  features: number[];
}

/** Span scores are clipped to this range: a span far outside it says no more than one at its edge. */
const SPAN_FLOOR = -10;
const SPAN_CEIL = 20;
/** The rank a sentence without a scored span is given (the reading keeps fewer spans than this). */
const NO_SPAN_RANK = 64;
/** Sentences read from each passage at most: a long chunk's tail rarely leads, and each costs a split. */
const SENTENCES_PER_PASSAGE = 12;
/** Characters of a sentence beyond which it is cut for display (a table flattened into one "sentence"). */
const LINE_CHARS = 400;

const clip = (x: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, x));

/** The passage's sentences, each with the best span the reader scored inside it. */
function sentencesWithSpans(
  p: EvidencePassage,
  index: number,
  spans: readonly SpanScore[],
): { text: string; start: number; end: number; best: number; rank: number }[] {
  const own = spans.map((s, rank) => ({ ...s, rank })).filter((s) => s.passage === index);
  return sentencesOf(p.text)
    .slice(0, SENTENCES_PER_PASSAGE)
    .map((s) => {
      const inside = own.filter((x) => x.start >= s.start && x.end <= s.end + 1);
      const best = inside.reduce((m, x) => Math.max(m, x.score), Number.NEGATIVE_INFINITY);
      const rank = inside.reduce((m, x) => Math.min(m, x.rank), NO_SPAN_RANK);
      return { text: s.text.trim(), start: s.start, end: s.end, best, rank };
    })
    .filter((s) => s.text.length > 0);
}

/**
 * Every sentence of the passages as a candidate first line, with its features (LINE_FEATURES, in
 * order). `chosen` is where the reading's answer stands, if it read a span.
 */
export function candidateLines(
  question: string,
  passages: readonly EvidencePassage[],
  spans: readonly SpanScore[],
  chosen: { passage: EvidencePassage; start: number; end: number } | null,
  nearness: readonly (readonly { start: number; end: number; cosine: number }[])[] = [],
): LineCandidate[] {
  const out: LineCandidate[] = [];
  const expected = expectedType(question);
  passages.forEach((p, i) => {
    const typed = expected === 'any' ? [] : typedRanges(expected, p.text);
    const context = [p.title, p.snippet.citation.entry?.term ?? ''].join(' ');
    const sentences = sentencesWithSpans(p, i, spans);
    sentences.forEach((s, k) => {
      const holdsChosen = chosen !== null && chosen.passage === p && chosen.start >= s.start && chosen.end <= s.end + 1;
      const words = s.text.split(' ').length;
      // a value of the kind the question asks for stands in the line, or the question asks for one and none does
      const holdsTyped = typed.some(([a, b]) => a >= s.start && b <= s.end + 1);
      // the nearest stored window that overlaps the line (the passage's own score where none is stored)
      const near = (nearness[i] ?? []).filter((w) => w.start < s.end && w.end > s.start);
      const cosine = near.length ? Math.max(...near.map((w) => w.cosine)) : p.snippet.score;
      out.push({
        snippet: { ...p.snippet, text: s.text.length > LINE_CHARS ? `${s.text.slice(0, LINE_CHARS - 1)}…` : s.text },
        passage: i,
        start: s.start,
        end: s.end,
        features: [
          Number.isFinite(s.best) ? clip(s.best, SPAN_FLOOR, SPAN_CEIL) : SPAN_FLOOR,
          Number.isFinite(s.best) ? 1 : 0,
          holdsChosen ? 1 : 0,
          Math.log1p(s.rank),
          Math.log1p(p.rank),
          p.snippet.score,
          evidenceCoverage(question, s.text),
          evidenceCoverage(question, `${context} ${s.text}`),
          p.snippet.text.includes(s.text) ? 1 : 0,
          k === 0 ? 1 : 0,
          Math.log(words),
          p.snippet.citation.entry ? 1 : 0,
          holdsTyped ? 1 : 0,
          expected !== 'any' && !holdsTyped ? 1 : 0,
          cosine,
        ],
      });
    });
  });
  return out;
}

/** The candidates ranked by P(holds the answer), best first, one line per distinct text. */
export function rankLines(candidates: readonly LineCandidate[], model: LogisticModel): LineCandidate[] {
  const scored = candidates.map((c) => ({ c, p: predict(model, c.features, LINE_FEATURES) }));
  scored.sort((a, b) => b.p - a.p);
  const seen = new Set<string>();
  const out: LineCandidate[] = [];
  for (const { c } of scored) {
    if (seen.has(c.snippet.text)) continue;
    seen.add(c.snippet.text);
    out.push(c);
  }
  return out;
}

/**
 * A line as a person reads it: the sentence, led by the term of the entry it belongs to when the
 * sentence does not name it ("PRAGMA cache_size — The default suggested cache size is -2000…").
 * The same in Slack, on the command line and in `ragask eval`.
 */
export function shownLine(s: Pick<Snippet, 'text' | 'citation'>): string {
  const entry = s.citation.entry;
  if (!entry) return s.text;
  // an option goes by each of its flags ("--raw-output, -r" is named by "--raw-output / -r: …")
  const names = entry.kind === 'option' ? entry.term.split(', ') : [entry.term];
  const text = s.text.toLowerCase();
  if (names.some((n) => text.includes(n.toLowerCase()))) return s.text;
  return `${entry.term} — ${s.text}`;
}
