import type { ReaderPassage, ReaderResult, SpanCandidate } from '../../models/reader.js';
import { normalizeAnswer, tokenF1 } from './normalize.js';
import { sentencesOf } from '../../models/nlp.js';
import { contentTerms, evidenceCoverage, termSet } from '../text.js';
import type { HopState } from '../types.js';
import { parseComparison, pickByValue, type AttributeQuery, type ComparisonQuestion } from './comparison.js';
import { readerInput, type EvidencePassage } from './passages.js';
import type { SpanScore } from './lines.js';
import { wholeValue } from './whole-value.js';
import {
  asksForDefault,
  expectedType,
  statesDefaultBefore,
  typedRanges,
  typeFit,
  valueWithin,
  type ExpectedType,
} from './answer-type.js';
import type { ReadKind, ReadingFeatures, ComparisonPath } from './features.js';

/** What the engine needs of a reader (src/models/reader.ts is the one implementation). */
export interface AnswerReader {
  read(question: string, passages: readonly ReaderPassage[], opts?: { spansPerWindow?: number }): Promise<ReaderResult>;
}

/** Spans the reader returns per window: enough that a value is among them when a description leads. */
const SPANS_PER_WINDOW = 12;

/**
 * Minus signs and dashes that the reader's vocabulary splits differently from "-": a question about
 * "−40 °C" (U+2212) must match a table row's "-40 °C". Each is one code unit for one, so the
 * reader's offsets hold in the original text, and the value shown is read from the original.
 */
const DASHES = /[\u2010-\u2013\u2212]/g;
const SIGNS = /^[+\-\u2212\u00b1]$/;

/**
 * Marks that join the parts of one written token: "X-Client-IP", "core:info", "mod_ssl",
 * "logs/httpd.pid", "2.4.1", a URL's query ("server-status?auto"), a key's value ("size=10M").
 */
const JOINER = /[-:_./\\?=&@#]/;
const WORD_CHAR = /[\p{L}\p{N}]/u;
/** A root ("/", "~/", "./", "../") or a "$" written right before a token, after a space or punctuation ("and/or" is prose). */
const ROOT_OR_SIGIL = /(?:^|[^\p{L}\p{N}_.~$/])((?:\.{1,2}|~)?\/|\$)$/u;
const ROOT_OR_SIGIL_REACH = 4;

/**
 * A span widened to the whole tokens it stands in. BERT's pre-tokenizer splits at every punctuation
 * mark, so the reader may end a span inside a name ("RemoteIPHeader X" of "X-Client-IP", "warn core"
 * of "core:info"); a value is written whole or not at all. A mark followed by a space (a full stop, a
 * label's colon) ends a token. A span that starts after a hyphen keeps off a lowercase word before it:
 * that is prose ("mid-19th century"), and the reader's start there is as in its training. A path
 * keeps its root ("/etc/ld.so.cache", not "etc/ld.so.cache") and a variable its "$".
 */
function wholeTokens(text: string, start: number, end: number): { start: number; end: number } {
  const word = (i: number) => i >= 0 && i < text.length && WORD_CHAR.test(text[i]!);
  let e = end;
  while (word(e - 1) && JOINER.test(text[e] ?? '') && word(e + 1)) {
    e += 1;
    while (word(e)) e += 1;
  }
  let s = start;
  while (word(s) && JOINER.test(text[s - 1] ?? '') && word(s - 2)) {
    let t = s - 1;
    while (word(t - 1)) t -= 1;
    // a prose prefix stays off ("mid-" of "mid-19th century"); a code token's part does not ("X-" of "X-Client-IP")
    if (text[s - 1] === '-' && /^\p{Ll}+$/u.test(text.slice(t, s - 1))) break;
    s = t;
  }
  // a path's root or a variable's sigil is part of it: "/etc/ld.so.cache", "~/.gitconfig", "$HOME"
  const lead = ROOT_OR_SIGIL.exec(text.slice(Math.max(0, s - ROOT_OR_SIGIL_REACH), s));
  if (lead && (word(s) || (text[s] === '.' && word(s + 1)))) s -= lead[1]!.length;
  return { start: s, end: e };
}

async function readFolded(
  reader: AnswerReader,
  question: string,
  passages: readonly ReaderPassage[],
): Promise<ReaderResult> {
  const fold = (s: string) => s.replace(DASHES, '-');
  const r = await reader.read(
    fold(question),
    passages.map((p) => ({ ...p, title: fold(p.title), text: fold(p.text) })),
    { spansPerWindow: SPANS_PER_WINDOW },
  );
  const original = (s: SpanCandidate): SpanCandidate => {
    const text = passages[s.passage]!.text;
    const whole = wholeTokens(text, s.start, s.end);
    // the reader's word pieces split a sign off its number ("−30 °C" is read as "30 °C"): a sign
    // written right before the span's first digit, after a space or punctuation, is part of the value
    const start =
      whole.start > 0 &&
      SIGNS.test(text[whole.start - 1]!) &&
      /\d/.test(text[whole.start] ?? '') &&
      (whole.start < 2 || /[\s(:;,/]/.test(text[whole.start - 2]!))
        ? whole.start - 1
        : whole.start;
    return { ...s, start, end: whole.end, text: text.slice(start, whole.end) };
  };
  return {
    ...r,
    span: r.span ? original(r.span) : null,
    windows: r.windows.map((w) => ({ ...w, spans: w.spans.map(original) })),
  };
}

export interface Rival {
  value: string;
  passage: EvidencePassage;
  start: number;
  end: number;
  score: number;
}

/** A span of a passage: where a value stands. */
export interface SpanAt {
  passage: EvidencePassage;
  start: number;
  end: number;
}

export interface ComparisonReading {
  options: { entity: string; value: string | null; passage: EvidencePassage | null; start: number; end: number }[];
  /** The sub-question each option's passage was asked ("When was {} born?"), if one decided it. */
  attribute: string | null;
}

export interface Reading {
  kind: ReadKind;
  /** The short answer: the span's text exactly, "yes"/"no", or null. */
  value: string | null;
  /** The passage the value is read from, and its character offsets there (-1 when not a span). */
  passage: EvidencePassage | null;
  start: number;
  end: number;
  /** Readings of other documents close behind, with another value (conflict candidates). */
  rivals: Rival[];
  /**
   * The reader's next best spans with other values, best first, at most NEXT_BEST: where to look
   * when the answer is declined (the sentences a person reads after the chosen one).
   */
  nextBest?: SpanAt[];
  /** Every span the reading scored, best first (at most SCORED_SPANS): what ranks the lines a person reads (lines.ts). */
  spans?: SpanScore[];
  comparison: ComparisonReading | null;
  features: ReadingFeatures;
  ms: number;
}

/** How many scored spans a reading keeps for ranking the lines shown (lines.ts). */
const SCORED_SPANS = 64;

/** How many of the reader's next best spans a reading keeps (leads are drawn from them, one per sentence). */
const NEXT_BEST = 8;

/** Span-score margins beyond this are all "clearly ahead". */
export const MARGIN_CAP = 8;
/** P(answer here) from which a window is taken to answer (its training's decision edge): for yes/no, and for a rival reading. */
const READER_ANSWERS = 0.5;

/** A rival within this many logits of the answer's span, in a window that believes it answers, disagrees. */
export const CONFLICT_MARGIN = 1.5;
/** Two readings are the same value when their token F1 reaches this. */
const SAME_VALUE_F1 = 0.5;

/** The numbers a value holds ("+0.35 °C" → "0.35"): two values with other numbers are other values, whatever their unit shares. */
const numbersOf = (s: string) => (s.match(/\d+(?:[.,]\d+)*/g) ?? []).join(' ');
const sameValue = (a: string, b: string) => {
  const na = numbersOf(a);
  const nb = numbersOf(b);
  if ((na || nb) && na !== nb) return false;
  return normalizeAnswer(a) === normalizeAnswer(b) || tokenF1(a, b) >= SAME_VALUE_F1;
};

interface Located extends SpanCandidate {
  pAnswer: number;
}

function spansOf(result: ReaderResult): Located[] {
  return result.windows.flatMap((w) => w.spans.map((s) => ({ ...s, pAnswer: 1 - w.probs.none })));
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

/** Passages whose document title the question names, best (longest) first, one per document. */
function namedPassages(question: string, passages: readonly EvidencePassage[]): EvidencePassage[] {
  const q = termSet(question);
  const scored = passages
    .map((p) => {
      const t = contentTerms(p.snippet.citation.document);
      return { p, n: t.length && t.every((x) => q.has(x)) ? t.length : 0 };
    })
    .filter((x) => x.n > 0)
    .sort((a, b) => b.n - a.n || a.p.rank - b.p.rank);
  const out: EvidencePassage[] = [];
  for (const { p } of scored) if (!out.some((o) => o.snippet.docId === p.snippet.docId)) out.push(p);
  return out;
}

/** The passage that best stands for an option of a choice: by its title, else by naming it early. */
function passageFor(
  option: string,
  passages: readonly EvidencePassage[],
  not: EvidencePassage | null,
): EvidencePassage | null {
  const o = termSet(option);
  let best: { p: EvidencePassage; s: number } | null = null;
  for (const p of passages) {
    if (not && p.snippet.docId === not.snippet.docId) continue;
    const t = termSet(p.snippet.citation.document);
    const inter = [...o].filter((x) => t.has(x)).length;
    let s = inter / Math.max(1, new Set([...o, ...t]).size);
    const at = p.text.toLowerCase().indexOf(option.toLowerCase());
    if (at >= 0) s = Math.max(s, at < 200 ? 0.6 : 0.3);
    s -= p.rank * 0.01;
    if (s > 0.25 && (!best || s > best.s)) best = { p, s };
  }
  return best?.p ?? null;
}

/** Where an option is written in its passage (so the answer is a span of a cited passage). */
function mention(option: string, p: EvidencePassage | null): { start: number; end: number } {
  if (!p) return { start: -1, end: -1 };
  const at = p.text.toLowerCase().indexOf(option.toLowerCase());
  return at >= 0 ? { start: at, end: at + option.length } : { start: -1, end: -1 };
}

function baseFeatures(
  kind: ReadKind,
  passage: EvidencePassage | null,
  stopped: boolean,
  comparison: ComparisonPath,
): ReadingFeatures {
  return {
    kind,
    pAnswer: 0,
    pKind: 0,
    spanScore: 0,
    margin: 0,
    agreement: 0,
    conflict: false,
    retrieval: passage?.snippet.score ?? 0,
    rank: passage?.rank ?? 99,
    hop: passage?.hop ?? 1,
    weight: passage?.weight ?? 0,
    confirmed: passage?.confirmed ?? false,
    comparison,
    stopped,
    words: 0,
    expected: 'any',
    typeFit: 0,
    labelled: false,
    coverage: 0,
    corroborated: false,
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
): Promise<Reading> {
  const reading = await readAnyPath(reader, question, hops, passages, stopped);
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
  const reading = fromResult(result, question, hops, passages, stopped, 'none');
  return { ...reading, ms: performance.now() - t0 };
}

function fromResult(
  result: ReaderResult,
  question: string,
  hops: readonly HopState[],
  passages: readonly EvidencePassage[],
  stopped: boolean,
  path: ComparisonPath,
): Omit<Reading, 'ms'> {
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
  const expected = expectedType(question);
  // passed over as read, and again when its cut value is what the question says ("the KeepAlive
  // directive" → "KeepAlive"); a value cut out of a bridge's text stays (a path the chain went by)
  const said = saidBy(question);
  const scored = scoreSpans(
    spansOf(result).filter((x) => !bad(x.text)),
    expected,
    question,
    passages,
  ).filter((x) => x.text && !said(x.text));
  const chosen = scored[0];
  if (!chosen) return none();
  const passage = passages[chosen.passage]!;
  const win = result.windows[chosen.window]!;
  const others = scored.filter((x) => !sameValue(x.text, chosen.text));
  const margin = Math.min(MARGIN_CAP, chosen.adjusted - (others[0]?.adjusted ?? chosen.adjusted - MARGIN_CAP));
  const agreement = result.windows.filter(
    (x, i) => i !== chosen.window && x.spans[0] && sameValue(valueAsked(expected, x.spans[0].text), chosen.text),
  ).length;
  const rivals: Rival[] = [];
  for (const x of others) {
    const p = passages[x.passage]!;
    // a rival is a reading of the same kind from another document, close behind, where the reader believes it answers
    // (the cell label's bonus picks the answer among readings; it does not make another source's reading less of a rival)
    if (
      p.snippet.docId === passage.snippet.docId ||
      x.pAnswer < READER_ANSWERS ||
      unlabelled(x) < unlabelled(chosen) - CONFLICT_MARGIN ||
      x.fit < chosen.fit
    )
      continue;
    // one reading per other source: its best (a source reads one value; its runners-up are not other sources)
    if (rivals.some((r) => sameValue(r.value, x.text) || r.passage.snippet.docId === p.snippet.docId)) continue;
    rivals.push({ value: x.text, passage: p, start: x.start, end: x.end, score: x.score });
  }
  const pAnswer = 1 - win.probs.none;
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
    features: {
      ...baseFeatures('span', passage, stopped, path),
      pAnswer,
      pKind: pAnswer > 0 ? win.probs.span / pAnswer : 0,
      spanScore: chosen.score,
      margin,
      agreement,
      conflict: rivals.length > 0,
      expected,
      typeFit: chosen.fit,
      labelled: chosen.named && (chosen.condition > 0 || !chosen.columnLabel),
      coverage: evidenceCoverage(question, `${passage.title} ${passage.text}`),
      corroborated: saidElsewhere(chosen.text, passage, passages),
    },
  };
}

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

interface ScoredSpan extends Located {
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
function saidElsewhere(value: string, from: EvidencePassage, passages: readonly EvidencePassage[]): boolean {
  const v = ` ${normalizeAnswer(value)} `;
  if (v.trim().length < 2) return false;
  return passages.some((p) => p.snippet.docId !== from.snippet.docId && ` ${normalizeAnswer(p.text)} `.includes(v));
}

/** A span's score without what only a table cell can earn: how a rival outside a table is judged against it. */
const unlabelled = (x: ScoredSpan) =>
  x.adjusted - (x.named ? LABEL_WEIGHT : 0) - CONDITION_WEIGHT * Math.max(0, x.condition);

const logOdds = (p: number) => Math.log(Math.max(1e-4, p) / Math.max(1e-4, 1 - p));

/** The value of a span's text the question asks for ("+0.30 °C" of "+0.30 °C to the Vantor TS-40"). */
function valueAsked(expected: ExpectedType, text: string): string {
  const cut = valueWithin(expected, text);
  return text.slice(cut.start, cut.end);
}

/**
 * The spans as answers, best first: the reader's score, moved by how the span fits what the
 * question asks for, whether its table cell is labelled with the question's words, and how much
 * its window believes it answers; each cut to its value. Offsets stay offsets into the passage.
 */
function scoreSpans(
  spans: readonly Located[],
  expected: ExpectedType,
  question: string,
  passages: readonly EvidencePassage[],
): ScoredSpan[] {
  const asked = termSet(question);
  const wantsDefault = asksForDefault(question);
  if (wantsDefault) asked.add('default');
  const subjects = subjectCoverages(question, passages);
  const best = Math.max(0, ...subjects);
  const out: ScoredSpan[] = [];
  for (const x of spans) {
    const fit = typeFit(expected, x.text);
    const label = cellLabel(passages[x.passage]!, x.start);
    // the label must name what is asked, all of it ("Offset", "Default"), not share a word with the
    // question; and the row must be about what is asked: every directive's table has a "Default"
    const labelTerms = label === null ? [] : contentTerms(label);
    const aboutIt = subjects[x.passage]! > 0 && subjects[x.passage]! >= SUBJECT_SHARE * best;
    const named = labelTerms.length > 0 && labelTerms.every((t) => asked.has(t)) && aboutIt;
    const condition = rowCondition(passages[x.passage]!, x.start, question);
    const cut = valueWithin(expected, x.text);
    const stated =
      wantsDefault && label === null && aboutIt && statesDefaultBefore(passages[x.passage]!.text, x.start + cut.start);
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
 * A labelled row answers only if its subject covers the question at least this share as well as the
 * passage that covers it best: "Default: TimeOut 60" (the server's timeout) is not the answer to
 * "what's ab's default socket timeout?" when ab's own page is in the evidence.
 */
const SUBJECT_SHARE = 0.6;
/** Words every question about a default shares with every table of defaults. */
const SUBJECT_STOP = new Set(['default', 'value', 'set']);

/**
 * How much of the question (less the words any default shares) each passage's subject covers: its
 * title and every passage of the same section among the passages ("Description: Maximum length of the
 * queue of pending connections" and the prose under it, beside "Default: ListenBackLog 511").
 */
function subjectCoverages(question: string, passages: readonly EvidencePassage[]): number[] {
  const terms = contentTerms(question).filter((t) => !SUBJECT_STOP.has(t));
  if (!terms.length) return passages.map(() => 1);
  const sectionOf = (p: EvidencePassage) => `${p.snippet.docId}\u0000${p.title}`;
  const sections = new Map<string, string[]>();
  for (const p of passages) sections.set(sectionOf(p), [...(sections.get(sectionOf(p)) ?? []), p.text]);
  return passages.map((p) => {
    const have = termSet(`${p.title} ${sections.get(sectionOf(p))!.join(' ')}`);
    return terms.filter((t) => have.has(t)).length / terms.length;
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

async function readComparison(
  reader: AnswerReader,
  question: string,
  c: ComparisonQuestion,
  passages: readonly EvidencePassage[],
  stopped: boolean,
): Promise<Omit<Reading, 'ms'> | null> {
  if (c.kind === 'yesno') return readYesNo(reader, question, passages, stopped);
  const [a, b] = c.options as [string, string];
  const pa = passageFor(a, passages, null);
  const pb = passageFor(b, passages, pa);
  if (!pa || !pb) return null;
  const choice: Choice = { pair: [pa, pb], options: [a, b], stopped };
  return (
    (c.attribute ? await readByAttribute(reader, c.attribute, choice) : null) ??
    readSideBySide(reader, question, choice)
  );
}

/** Two options of a "which of A or B" question, each with the passage about it. */
interface Choice {
  pair: [EvidencePassage, EvidencePassage];
  options: [string, string];
  stopped: boolean;
}

/** What a reading of two passages together rests on: the weaker of the two, the later of their ranks and hops. */
function pairFeatures(
  pair: readonly EvidencePassage[],
): Pick<ReadingFeatures, 'retrieval' | 'rank' | 'weight' | 'confirmed' | 'hop'> {
  return {
    retrieval: Math.min(...pair.map((p) => p.snippet.score)),
    rank: Math.max(...pair.map((p) => p.rank)),
    weight: Math.min(...pair.map((p) => p.weight)),
    confirmed: pair.every((p) => p.confirmed),
    hop: Math.max(...pair.map((p) => p.hop)),
  };
}

/** The option chosen, as the answer: its name where its passage writes it, with the comparison shown beside it. */
function chosenOption(
  choice: Choice,
  winner: 0 | 1,
  path: ComparisonPath,
  comparison: ComparisonReading,
  features: Partial<ReadingFeatures>,
): Omit<Reading, 'ms'> {
  const p = choice.pair[winner];
  const at = mention(choice.options[winner], p);
  const { hop: _hop, ...pairwise } = pairFeatures(choice.pair);
  return {
    kind: 'span',
    value: at.start >= 0 ? p.text.slice(at.start, at.end) : choice.options[winner],
    passage: p,
    start: at.start,
    end: at.end,
    rivals: [],
    comparison,
    features: { ...baseFeatures('span', p, choice.stopped, path), ...pairwise, ...features },
  };
}

/** Yes or no: both compared things side by side in one window (the passages the question names, else the top two). */
async function readYesNo(
  reader: AnswerReader,
  question: string,
  passages: readonly EvidencePassage[],
  stopped: boolean,
): Promise<Omit<Reading, 'ms'> | null> {
  const named = namedPassages(question, passages);
  const pair = named.length >= 2 ? named.slice(0, 2) : passages.slice(0, 2);
  const result = await readFolded(reader, question, readerInput(pair));
  const w = result.windows[0];
  if (!w) return null;
  const kind: ReadKind = w.probs.yes >= w.probs.no ? 'yes' : 'no';
  const decided = w.probs.yes + w.probs.no;
  const first = pair[0]!;
  return {
    kind,
    value: kind,
    passage: first,
    start: -1,
    end: -1,
    rivals: [],
    comparison: {
      options: pair.map((p) => ({ entity: p.snippet.citation.document, value: null, passage: p, start: -1, end: -1 })),
      attribute: null,
    },
    features: {
      ...baseFeatures(kind, first, stopped, 'yesno'),
      pAnswer: decided,
      pKind: decided > 0 ? Math.max(w.probs.yes, w.probs.no) / decided : 0.5,
      ...pairFeatures(pair),
    },
  };
}

/** Each option's attribute read from its own passage ("When was {} born?"), then compared; null when the values do not decide. */
async function readByAttribute(
  reader: AnswerReader,
  attribute: AttributeQuery,
  choice: Choice,
): Promise<Omit<Reading, 'ms'> | null> {
  const values: { value: string | null; start: number; end: number; p: number }[] = [];
  for (const [i, p] of choice.pair.entries()) {
    const template =
      /founded/.test(attribute.template) && /\bborn\b/i.test(p.text)
        ? attribute.template.replace('founded', 'born')
        : attribute.template;
    const r = await readFolded(reader, template.replace('{}', choice.options[i]!), readerInput([p]));
    // the best span even where the reader doubts the passage answers: the value must still parse as a date or count
    const span = r.span ?? spansOf(r).sort((x, y) => y.score - x.score)[0] ?? null;
    values.push({ value: span?.text ?? null, start: span?.start ?? -1, end: span?.end ?? -1, p: r.pAnswer });
  }
  const winner = pickByValue(attribute, values[0]!.value, values[1]!.value);
  if (winner === null) return null;
  const comparison = {
    options: choice.pair.map((q, i) => ({
      entity: choice.options[i]!,
      value: values[i]!.value,
      passage: q,
      start: values[i]!.start,
      end: values[i]!.end,
    })),
    attribute: attribute.template,
  };
  return chosenOption(choice, winner, 'choice-attribute', comparison, {
    pAnswer: Math.min(values[0]!.p, values[1]!.p),
    pKind: 1,
    margin: MARGIN_CAP,
  });
}

/** Which option the reader points at, reading both passages side by side; null when it points at neither. */
async function readSideBySide(
  reader: AnswerReader,
  question: string,
  choice: Choice,
): Promise<Omit<Reading, 'ms'> | null> {
  const result = await readFolded(reader, question, readerInput(choice.pair));
  const spans = spansOf(result);
  const scoreOf = (option: string) =>
    Math.max(
      -Infinity,
      ...spans
        .filter(
          (s) =>
            sameValue(s.text, option) ||
            s.text.toLowerCase().includes(option.toLowerCase()) ||
            option.toLowerCase().includes(s.text.toLowerCase()),
        )
        .map((s) => s.score),
    );
  const scores = choice.options.map(scoreOf);
  if (scores.every((s) => s === -Infinity)) return null;
  const winner = scores[0]! >= scores[1]! ? 0 : 1;
  const loser = scores[1 - winner]!;
  const comparison = {
    options: choice.pair.map((q, i) => ({ entity: choice.options[i]!, value: null, passage: q, start: -1, end: -1 })),
    attribute: null,
  };
  return chosenOption(choice, winner, 'choice-read', comparison, {
    pAnswer: result.pAnswer,
    pKind: result.pKind,
    spanScore: scores[winner]!,
    margin: Math.min(MARGIN_CAP, loser === -Infinity ? MARGIN_CAP : scores[winner]! - loser),
  });
}

/**
 * The sentence of a question that asks: its last one ending in "?", without the setting told before
 * it ("A client with enormous cookies is getting rejected. By default, how many bytes …?"). The
 * reader was trained on one-sentence questions; the setting serves retrieval, which reads it all.
 * Measured on teamdocs-apache: proposals right 0.317 → 0.400 (BENCHMARKS.md, "The reader reads the
 * question asked").
 */
export function askedPart(question: string): string {
  const parts = sentencesOf(question).map((x) => question.slice(x.start, x.end).trim());
  if (parts.length < 2) return question;
  const at = parts.map((p) => p.endsWith('?')).lastIndexOf(true);
  return at < 0 ? question : parts[at]!;
}
