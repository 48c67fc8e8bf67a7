/** How the reader's spans are scored against what the question asks: its kind, a stated default, the window's belief. */
import { normalizeAnswer } from './normalize.js';
import type { EvidencePassage } from './passages.js';
import { asksForDefault, statesDefaultBefore, typeFit, valueWithin, type ExpectedType } from './answer-type.js';
import type { SpanCandidate } from '../../models/reader-types.js';
import { SPANS } from './spans.fitted.js';

/**
 * What the span scorer reads of a span besides the reader's own score, in the order of the weights
 * in spans.fitted.ts: it is of the kind asked for (+1), of another kind (a description where a value
 * is asked for), stated by its own sentence as the default asked for, and its window's log-odds of
 * answering at all. Each weight is in the reader's logits; `ragask calibrate --spans` fits them on
 * the tuning sets and judges the fit leave one set out (docs/benchmarks-history.md, "The span scorer,
 * fitted"). A table cell's label named by the question and a table row's condition went with their
 * ablation on sets they were not written from (docs/benchmarks-history.md, "Every rule family ablated
 * again").
 */
export const SPAN_FEATURES = ['typed', 'misfit', 'stated_default', 'window_log_odds'] as const;

export interface FeaturedSpan extends Located {
  /** SPAN_FEATURES of the span. */
  features: number[];
  fit: -1 | 0 | 1;
}

export interface ScoredSpan extends FeaturedSpan {
  /** The reader's score moved by the weighted features. */
  adjusted: number;
}

/** Whether a passage of another document holds the value as whole words ("Mirela Ostrowski" in the people directory too). */
export function saidElsewhere(value: string, from: EvidencePassage, passages: readonly EvidencePassage[]): boolean {
  const v = ` ${normalizeAnswer(value)} `;
  if (v.trim().length < 2) return false;
  return passages.some((p) => p.snippet.docId !== from.snippet.docId && ` ${normalizeAnswer(p.text)} `.includes(v));
}

const logOdds = (p: number) => Math.log(Math.max(1e-4, p) / Math.max(1e-4, 1 - p));

/** The value of a span's text the question asks for ("+0.30 °C" of "+0.30 °C to the Vantor TS-40"). */
export function valueAsked(expected: ExpectedType, text: string): string {
  const cut = valueWithin(expected, text);
  return text.slice(cut.start, cut.end);
}

/**
 * Each span with what the scorer reads of it (SPAN_FEATURES), cut to its value. Offsets stay offsets
 * into the passage.
 */
export function featureSpans(
  spans: readonly Located[],
  expected: ExpectedType,
  question: string,
  passages: readonly EvidencePassage[],
): FeaturedSpan[] {
  const wantsDefault = asksForDefault(question);
  return spans.map((x) => {
    const fit = typeFit(expected, x.text);
    const cut = valueWithin(expected, x.text);
    // a labelled table cell states its default by its label ("Default: 5"), not by its prose
    const stated =
      wantsDefault &&
      cellLabel(passages[x.passage]!, x.start) === null &&
      statesDefaultBefore(passages[x.passage]!.text, x.start + cut.start);
    return {
      ...x,
      start: x.start + cut.start,
      end: x.start + cut.end,
      text: x.text.slice(cut.start, cut.end),
      features: [fit > 0 ? 1 : 0, fit < 0 ? 1 : 0, stated ? 1 : 0, logOdds(x.pAnswer)],
      fit,
    };
  });
}

/**
 * The spans as answers, best first, one per value: the reader's score moved by the weighted features
 * (how the span fits what the question asks for, a stated default, how much its window believes it
 * answers).
 */
export function rankSpans(spans: readonly FeaturedSpan[], weights: readonly number[] = SPANS.weights): ScoredSpan[] {
  if (weights.length !== SPAN_FEATURES.length || SPANS.features.some((f, i) => f !== SPAN_FEATURES[i]))
    throw new Error(
      `the span scorer's fitted features (${SPANS.features.join(', ')}) are not the code's (${SPAN_FEATURES.join(', ')}): refit them with \`npx ragask calibrate --spans … --write\``,
    );
  // summed from the reader's score term by term, in the order the hand-set constants were added
  // before they were weights, so every score is the same to the last bit
  const out = spans.map((x) => ({ ...x, adjusted: x.features.reduce((s, f, i) => s + weights[i]! * f, x.score) }));
  out.sort((p, q) => q.adjusted - p.adjusted);
  // one reading per value: the best of each
  const seen = new Set<string>();
  return out.filter((x) => {
    const key = normalizeAnswer(x.text);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** The label of the table cell a span starts in ("Offset" of "Offset: +0.35 °C"), if the passage is a row. */
function cellLabel(p: EvidencePassage, at: number): string | null {
  const range = p.answerRanges?.find(([a, b]) => a <= at && at < b);
  if (!range) return null;
  const before = p.text.slice(0, range[0]);
  const m = /(?:^|; )([^;:]{1,60}): $/.exec(before);
  return m ? m[1]! : null;
}

export interface Located extends SpanCandidate {
  pAnswer: number;
}
