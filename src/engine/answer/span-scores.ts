/** How the reader's spans are scored against what the question asks: its kind, a named label, a stated default, a row's condition, the window's belief. */
import { normalizeAnswer } from './normalize.js';
import { contentTerms, termSet } from '../text.js';
import type { EvidencePassage } from './passages.js';
import { asksForDefault, statesDefaultBefore, typeFit, valueWithin, type ExpectedType } from './answer-type.js';
import type { SpanCandidate } from '../../models/reader-types.js';
import { SPANS } from './spans.fitted.js';

/**
 * What the span scorer reads of a span besides the reader's own score, in the order of the weights
 * in spans.fitted.ts: it is of the kind asked for (+1), of another kind (a description where a value
 * is asked for), in a table cell whose label the question names, stated by its own sentence as the
 * default asked for, in a table row that states the question's own condition (+1: the −20 °C row
 * for "at −20 °C") or another value of it (−1), and its window's log-odds of answering at all. Each
 * weight is in the reader's logits; `ragask calibrate --spans` fits them on the tuning sets and
 * judges the fit leave one set out (docs/benchmarks-history.md, "The span scorer, fitted"). Only the sample
 * corpus's datasheets ask about a row's condition, so only they can weigh it.
 */
export const SPAN_FEATURES = [
  'typed',
  'misfit',
  'named_label',
  'stated_default',
  'row_condition',
  'window_log_odds',
] as const;

export interface FeaturedSpan extends Located {
  /** SPAN_FEATURES of the span. */
  features: number[];
  fit: -1 | 0 | 1;
  /** The span stands in a table cell whose label the question names. */
  named: boolean;
  /** Its label heads a column: another row of its section among the passages has it too ("Format String"). */
  columnLabel: boolean;
  /** Its table row states the question's condition (+1), another value of it (−1), or neither (0). */
  condition: number;
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

const NAMED = SPAN_FEATURES.indexOf('named_label');
const CONDITION = SPAN_FEATURES.indexOf('row_condition');

/** A span's score without what only a table cell can earn: how a rival outside a table is judged against it. */
export const unlabelled = (x: ScoredSpan, weights: readonly number[] = SPANS.weights) =>
  x.adjusted - weights[NAMED]! * x.features[NAMED]! - weights[CONDITION]! * Math.max(0, x.features[CONDITION]!);

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
  const asked = termSet(question);
  const wantsDefault = asksForDefault(question);
  if (wantsDefault) asked.add('default');
  return spans.map((x) => {
    const fit = typeFit(expected, x.text);
    const label = cellLabel(passages[x.passage]!, x.start);
    // the label must name what is asked, all of it ("Offset", "Default"), not share a word with the
    // question (a rule that the row's section must also cover the question went with its ablation:
    // docs/benchmarks-history.md, "Every rule family ablated")
    const labelTerms = label === null ? [] : contentTerms(label);
    const named = labelTerms.length > 0 && labelTerms.every((t) => asked.has(t));
    const condition = rowCondition(passages[x.passage]!, x.start, question);
    const cut = valueWithin(expected, x.text);
    const stated =
      wantsDefault && label === null && statesDefaultBefore(passages[x.passage]!.text, x.start + cut.start);
    return {
      ...x,
      start: x.start + cut.start,
      end: x.start + cut.end,
      text: x.text.slice(cut.start, cut.end),
      features: [fit > 0 ? 1 : 0, fit < 0 ? 1 : 0, named ? 1 : 0, stated ? 1 : 0, condition, logOdds(x.pAnswer)],
      fit,
      named,
      columnLabel: named && labelOfOtherRow(passages, x.passage, label!),
      condition,
    };
  });
}

/**
 * The spans as answers, best first, one per value: the reader's score moved by the weighted features
 * (how the span fits what the question asks for, its table cell's label and row, a stated default,
 * how much its window believes it answers).
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

/**
 * A table row's other cells against the conditions the question states: +1 when a cell holds the
 * question's own figure ("−20 °C" in "Temperature: -20 °C"), −1 when cells give the same unit only
 * at other values (the −40 °C row for a −20 °C question), 0 otherwise: a row about another
 * condition answers another question.
 */
const FIGURE = /([+\-\u2212]?\d+(?:[.,]\d+)?)\s*(°\s?[CFK]|%|[A-Za-zµ]{1,4}\b)/g;

function figuresOf(text: string): { value: number; unit: string }[] {
  return [...text.matchAll(FIGURE)].map((m) => ({
    value: Number(m[1]!.replace('\u2212', '-').replace(',', '.')),
    unit: m[2]!.replace(/\s+/g, ''),
  }));
}

function rowCondition(p: EvidencePassage, at: number, question: string): number {
  const cells = p.answerRanges;
  if (!cells) return 0;
  const asked = figuresOf(question);
  if (!asked.length) return 0;
  const others = figuresOf(
    cells
      .filter(([a, b]) => !(a <= at && at < b))
      .map(([a, b]) => p.text.slice(a, b))
      .join('; '),
  );
  let verdict = 0;
  for (const q of asked) {
    const sameUnit = others.filter((o) => o.unit === q.unit);
    if (!sameUnit.length) continue;
    if (sameUnit.some((o) => o.value === q.value)) return 1;
    verdict = -1;
  }
  return verdict;
}

/**
 * Whether another table row of the same section among the passages has a cell with this label: a
 * column's label says what kind of value a cell holds, not which row answers ("Format String: %%" is
 * one row of forty). The row is then picked by its condition, or by the reader.
 */
function labelOfOtherRow(passages: readonly EvidencePassage[], at: number, label: string): boolean {
  const p = passages[at]!;
  const cell = `${label}: `;
  return passages.some(
    (q, i) =>
      i !== at &&
      q.answerRanges !== undefined &&
      q.snippet.docId === p.snippet.docId &&
      q.title === p.title &&
      (q.text.startsWith(cell) || q.text.includes(`; ${cell}`)),
  );
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
