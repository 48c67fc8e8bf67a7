import { normalizeAnswer } from './normalize.js';
import { contentTerms, evidenceCoverage, termSet } from '../text.js';
import type { HopState } from '../types.js';
import { parseComparison } from './comparison.js';
import { readerInput, type EvidencePassage } from './passages.js';
import { wholeValue } from './whole-value.js';
import { expectedType, typedRanges, type ExpectedType } from './answer-type.js';
import type { ReadKind, ComparisonPath, ReadingFeatures } from './features.js';
import {
  featureSpans,
  rankSpans,
  valueAsked,
  saidElsewhere,
  type FeaturedSpan,
  type ScoredSpan,
} from './span-scores.js';
import { readComparison, askedPart } from './read-comparison.js';
import {
  type AnswerReader,
  type Reading,
  readFolded,
  baseFeatures,
  spansOf,
  sameValue,
  MARGIN_CAP,
  type Rival,
  CONFLICT_MARGIN,
} from './reading.js';
import type { ReaderResult } from '../../models/reader-types.js';

/** How many scored spans a reading keeps for ranking the lines shown (lines.ts). */
const SCORED_SPANS = 64;

/** How many of the reader's next best spans a reading keeps (leads are drawn from them, one per sentence). */
const NEXT_BEST = 8;

/** P(answer here) from which a window is taken to answer (its training's decision edge): for yes/no, and for a rival reading. */
const READER_ANSWERS = 0.5;

/** A measurement hook: every span that competes to be the answer, with its features, before ranking. */
export type SpansObserver = (question: string, spans: readonly ObservedSpan[]) => void;

/** A competing span: the reader's score, SPAN_FEATURES, its value and the whole value a reply would show. */
export interface ObservedSpan {
  score: number;
  features: readonly number[];
  text: string;
  whole: string;
}

/**
 * Spans that may not be the answer of a question that is not a comparison: one the question already
 * says (its words are all in the question), or a bridge the chain went on from, or a part of one
 * (the way there, not the destination). The last hop's bridge is where the chain arrived: a chain
 * that went on to "Mirela Ostrowski" found the person the question asks for, and may answer with her.
 */
function forbidden(question: string, hops: readonly HopState[]) {
  const said = saidBy(question);
  const bridges = hops
    .slice(0, -1)
    .map((h) => h.bridge)
    .filter((b): b is string => !!b)
    .map((b) => ` ${normalizeAnswer(b)} `);
  return (text: string) => {
    if (said(text)) return true;
    const n = normalizeAnswer(text);
    return n.length > 0 && bridges.some((b) => b.includes(` ${n} `));
  };
}

/** Whether a span only says what the question says: all its content words are the question's. */
function saidBy(question: string) {
  const q = termSet(question);
  return (text: string) => {
    const terms = contentTerms(text);
    return terms.length > 0 && terms.every((t) => q.has(t));
  };
}

/**
 * Reads the answer off the evidence: the question with the top passages of the final chain, one
 * reader call (two or three for a comparison). Spans the question already says and bridge
 * entities are passed over; the rest of the spans give the margin, agreement and rivals that the
 * confidence is computed from.
 */
export async function readAnswer(
  reader: AnswerReader,
  question: string,
  hops: readonly HopState[],
  passages: readonly EvidencePassage[],
  stopped: boolean,
  observe?: SpansObserver,
): Promise<Reading> {
  const reading = await readAnyPath(reader, question, hops, passages, stopped, observe);
  if (reading.kind === 'span' && reading.value)
    reading.features.words = reading.value.split(/\s+/).filter(Boolean).length;
  return reading;
}

async function readAnyPath(
  reader: AnswerReader,
  question: string,
  hops: readonly HopState[],
  passages: readonly EvidencePassage[],
  stopped: boolean,
  observe?: SpansObserver,
): Promise<Reading> {
  const t0 = performance.now();
  const comparison = parseComparison(question);
  if (comparison && passages.length >= 2) {
    const r = await readComparison(reader, question, comparison, passages, stopped);
    if (r) return { ...r, ms: performance.now() - t0 };
  }
  // every value of the kind asked for competes, not only the reader's own top spans
  const expected = expectedType(question);
  const input = readerInput(passages).map((p) => ({ ...p, candidateRanges: typedRanges(expected, p.text) }));
  const result = await readFolded(reader, askedPart(question), input);
  const reading = fromResult(result, question, expected, hops, passages, stopped, observe);
  return { ...reading, ms: performance.now() - t0 };
}

/** The reading of a question that is not a comparison: its spans scored against the kind of value asked for. */
function fromResult(
  result: ReaderResult,
  question: string,
  expected: ExpectedType,
  hops: readonly HopState[],
  passages: readonly EvidencePassage[],
  stopped: boolean,
  observe?: SpansObserver,
): Omit<Reading, 'ms'> {
  const path: ComparisonPath = 'none';
  const none = (kind: ReadKind = 'none'): Omit<Reading, 'ms'> => ({
    kind,
    value: null,
    passage: null,
    start: -1,
    end: -1,
    rivals: [],
    comparison: null,
    features: { ...baseFeatures(kind, null, stopped, path), pAnswer: result.pAnswer, pKind: result.pKind },
  });
  if (result.window < 0) return none();
  const w = result.windows[result.window]!;
  if ((result.kind === 'yes' || result.kind === 'no') && result.pAnswer >= READER_ANSWERS) {
    const p = passages[w.passages[0]!] ?? null;
    return {
      kind: result.kind,
      value: result.kind,
      passage: p,
      start: -1,
      end: -1,
      rivals: [],
      comparison: null,
      features: { ...baseFeatures(result.kind, p, stopped, path), pAnswer: result.pAnswer, pKind: result.pKind },
    };
  }
  // every window's spans compete: on a manual the reader often doubts the passage that holds the
  // value ("Default: MaxKeepAliveRequests 100"), and its doubt is a feature of the confidence, not a veto
  const bad = forbidden(question, hops);
  // passed over as read, and again when its cut value is what the question says ("the KeepAlive
  // directive" → "KeepAlive"); a value cut out of a bridge's text stays (a path the chain went by)
  const said = saidBy(question);
  const competing = featureSpans(
    spansOf(result).filter((x) => !bad(x.text)),
    expected,
    question,
    passages,
  );
  const answerable = (x: FeaturedSpan) => x.text !== '' && !said(x.text);
  if (observe)
    observe(
      question,
      competing.filter(answerable).map((x) => observed(x, passages)),
    );
  // one reading per value first, then the values the question says go (a value whose best reading
  // is said goes whole, as before the scorer's weights were named)
  const scored = rankSpans(competing).filter(answerable);
  const chosen = scored[0];
  if (!chosen) return none();
  const passage = passages[chosen.passage]!;
  const others = scored.filter((x) => !sameValue(x.text, chosen.text));
  const rivals = rivalsOf(chosen, others, passages);
  // the value a person reads keeps its unit and bound ("at least 2 reviewers"); it competed as read
  const whole = wholeValue(passage.text, chosen.start, chosen.end);
  return {
    kind: 'span',
    value: passage.text.slice(whole.start, whole.end),
    passage,
    start: whole.start,
    end: whole.end,
    rivals,
    nextBest: others.slice(0, NEXT_BEST).map((x) => ({ passage: passages[x.passage]!, start: x.start, end: x.end })),
    spans: scored
      .slice(0, SCORED_SPANS)
      .map((x) => ({ passage: x.passage, start: x.start, end: x.end, score: x.adjusted })),
    comparison: null,
    features: spanFeatures({ result, question, passages, stopped, path, expected, chosen, others, rivals }),
  };
}

/**
 * Readings of the same kind from other documents, close behind, where the reader believes they
 * answer: one per other source, its best (a source reads one value; its runners-up are not other
 * sources).
 */
function rivalsOf(chosen: ScoredSpan, others: readonly ScoredSpan[], passages: readonly EvidencePassage[]): Rival[] {
  const passage = passages[chosen.passage]!;
  const rivals: Rival[] = [];
  for (const x of others) {
    const p = passages[x.passage]!;
    if (
      p.snippet.docId === passage.snippet.docId ||
      x.pAnswer < READER_ANSWERS ||
      x.adjusted < chosen.adjusted - CONFLICT_MARGIN ||
      x.fit < chosen.fit
    )
      continue;
    if (rivals.some((r) => sameValue(r.value, x.text) || r.passage.snippet.docId === p.snippet.docId)) continue;
    rivals.push({ value: x.text, passage: p, start: x.start, end: x.end, score: x.score });
  }
  return rivals;
}

/** What a span reading is judged on (its calibrated confidence's features). */
function spanFeatures(r: {
  result: ReaderResult;
  question: string;
  passages: readonly EvidencePassage[];
  stopped: boolean;
  path: ComparisonPath;
  expected: ExpectedType;
  chosen: ScoredSpan;
  others: readonly ScoredSpan[];
  rivals: readonly Rival[];
}): ReadingFeatures {
  const { result, question, passages, expected, chosen, others } = r;
  const passage = passages[chosen.passage]!;
  const win = result.windows[chosen.window]!;
  const pAnswer = 1 - win.probs.none;
  return {
    ...baseFeatures('span', passage, r.stopped, r.path),
    pAnswer,
    pKind: pAnswer > 0 ? win.probs.span / pAnswer : 0,
    spanScore: chosen.score,
    margin: Math.min(MARGIN_CAP, chosen.adjusted - (others[0]?.adjusted ?? chosen.adjusted - MARGIN_CAP)),
    agreement: result.windows.filter(
      (x, i) => i !== chosen.window && x.spans[0] && sameValue(valueAsked(expected, x.spans[0].text), chosen.text),
    ).length,
    conflict: r.rivals.length > 0,
    expected,
    typeFit: chosen.fit,
    coverage: evidenceCoverage(question, `${passage.title} ${passage.text}`),
    corroborated: saidElsewhere(chosen.text, passage, passages),
  };
}

function observed(x: FeaturedSpan, passages: readonly EvidencePassage[]): ObservedSpan {
  const text = passages[x.passage]!.text;
  const whole = wholeValue(text, x.start, x.end);
  return { score: x.score, features: x.features, text: x.text, whole: text.slice(whole.start, whole.end) };
}
