/** How the reader's spans are scored against what the question asks: type fit, labels, the subject and a row's condition. */
import { normalizeAnswer } from './normalize.js';
import { contentTerms, termSet } from '../text.js';
import type { EvidencePassage } from './passages.js';
import { asksForDefault, statesDefaultBefore, typeFit, valueWithin, type ExpectedType } from './answer-type.js';
import type { SpanCandidate } from '../../models/reader-types.js';

/** Logits a span of the expected kind is worth over one that cannot tell. */
const TYPE_WEIGHT = 3;

/**
 * Logits a span of another kind loses: a description where a value is asked for ("Number of
 * seconds"), a sentence where a name is. The reader scores a manual's descriptions far above the
 * value in the Default row beside them (11.3 against −6.6 logits), and such a span is never the
 * answer; it stays the proposal only when nothing of the kind asked comes close. Swept 3 / 6 / 9 / 15
 * on the tuning sets (BENCHMARKS.md).
 */
const MISFIT_WEIGHT = 9;

/** Logits for a span in a labelled cell whose label the question names ("Default: 5" for "by default"). */
const LABEL_WEIGHT = 6;

/**
 * Logits for a value its own sentence states as the default, when the question asks for one
 * ("The default value is 7200 seconds"): as much as a table's Default cell, which says the same.
 * Measured 3 against 6 on teamdocs-apache and teamdocs-manpages (BENCHMARKS.md).
 */
const STATED_DEFAULT_WEIGHT = LABEL_WEIGHT;

/** Logits per unit of log-odds that the span's window answers at all. */
const WINDOW_WEIGHT = 3;

export interface ScoredSpan extends Located {
  /** The reader's score moved by the type, the cell's label and the window's belief. */
  adjusted: number;
  fit: -1 | 0 | 1;
  /** The span stands in a table cell whose label the question names. */
  named: boolean;
  /** Its label heads a column: another row of its section among the passages has it too ("Format String"). */
  columnLabel: boolean;
  /** Its table row states the question's condition (+1), another value of it (−1), or neither (0). */
  condition: number;
}

/** Whether a passage of another document holds the value as whole words ("Mirela Ostrowski" in the people directory too). */
export function saidElsewhere(value: string, from: EvidencePassage, passages: readonly EvidencePassage[]): boolean {
  const v = ` ${normalizeAnswer(value)} `;
  if (v.trim().length < 2) return false;
  return passages.some((p) => p.snippet.docId !== from.snippet.docId && ` ${normalizeAnswer(p.text)} `.includes(v));
}

/** A span's score without what only a table cell can earn: how a rival outside a table is judged against it. */
export const unlabelled = (x: ScoredSpan) =>
  x.adjusted - (x.named ? LABEL_WEIGHT : 0) - CONDITION_WEIGHT * Math.max(0, x.condition);

const logOdds = (p: number) => Math.log(Math.max(1e-4, p) / Math.max(1e-4, 1 - p));

/** The value of a span's text the question asks for ("+0.30 °C" of "+0.30 °C to the Vantor TS-40"). */
export function valueAsked(expected: ExpectedType, text: string): string {
  const cut = valueWithin(expected, text);
  return text.slice(cut.start, cut.end);
}

/**
 * The spans as answers, best first: the reader's score, moved by how the span fits what the
 * question asks for, whether its table cell is labelled with the question's words, and how much
 * its window believes it answers; each cut to its value. Offsets stay offsets into the passage.
 */
export function scoreSpans(
  spans: readonly Located[],
  expected: ExpectedType,
  question: string,
  passages: readonly EvidencePassage[],
): ScoredSpan[] {
  const asked = termSet(question);
  const wantsDefault = asksForDefault(question);
  if (wantsDefault) asked.add('default');
  const out: ScoredSpan[] = [];
  for (const x of spans) {
    const fit = typeFit(expected, x.text);
    const label = cellLabel(passages[x.passage]!, x.start);
    // the label must name what is asked, all of it ("Offset", "Default"), not share a word with the
    // question (a rule that the row's section must also cover the question went with its ablation:
    // BENCHMARKS.md, "Every rule family ablated")
    const labelTerms = label === null ? [] : contentTerms(label);
    const named = labelTerms.length > 0 && labelTerms.every((t) => asked.has(t));
    const condition = rowCondition(passages[x.passage]!, x.start, question);
    const cut = valueWithin(expected, x.text);
    const stated =
      wantsDefault && label === null && statesDefaultBefore(passages[x.passage]!.text, x.start + cut.start);
    const adjusted =
      x.score +
      (fit < 0 ? MISFIT_WEIGHT : TYPE_WEIGHT) * fit +
      (named ? LABEL_WEIGHT : 0) +
      (stated ? STATED_DEFAULT_WEIGHT : 0) +
      CONDITION_WEIGHT * condition +
      WINDOW_WEIGHT * logOdds(x.pAnswer);
    out.push({
      ...x,
      start: x.start + cut.start,
      end: x.start + cut.end,
      text: x.text.slice(cut.start, cut.end),
      adjusted,
      fit,
      named,
      columnLabel: named && labelOfOtherRow(passages, x.passage, label!),
      condition,
    });
  }
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
 * at other values (the −40 °C row for a −20 °C question), 0 otherwise. As strong as a named label:
 * a row about another condition answers another question.
 */
const CONDITION_WEIGHT = 6;

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
