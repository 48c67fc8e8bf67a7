/** What a reading is: the reader's contract, a reading's parts and the span-level helpers every path of reading shares. */
import { normalizeAnswer, tokenF1 } from './normalize.js';
import { contentTerms, termSet } from '../text.js';
import type { EvidencePassage } from './passages.js';
import type { SpanScore } from './lines.js';
import type { ReadKind, ReadingFeatures, ComparisonPath } from './features.js';
import type { Located } from './span-scores.js';
import type { ReaderPassage, ReaderResult, SpanCandidate } from '../../models/reader-types.js';

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

export async function readFolded(
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

/** Span-score margins beyond this are all "clearly ahead". */
export const MARGIN_CAP = 8;

/** A rival within this many logits of the answer's span, in a window that believes it answers, disagrees. */
export const CONFLICT_MARGIN = 1.5;

/** Two readings are the same value when their token F1 reaches this. */
const SAME_VALUE_F1 = 0.5;

/** The numbers a value holds ("+0.35 °C" → "0.35"): two values with other numbers are other values, whatever their unit shares. */
const numbersOf = (s: string) => (s.match(/\d+(?:[.,]\d+)*/g) ?? []).join(' ');

export const sameValue = (a: string, b: string) => {
  const na = numbersOf(a);
  const nb = numbersOf(b);
  if ((na || nb) && na !== nb) return false;
  return normalizeAnswer(a) === normalizeAnswer(b) || tokenF1(a, b) >= SAME_VALUE_F1;
};

export function spansOf(result: ReaderResult): Located[] {
  return result.windows.flatMap((w) => w.spans.map((s) => ({ ...s, pAnswer: 1 - w.probs.none })));
}

/** Passages whose document title the question names, best (longest) first, one per document. */
export function namedPassages(question: string, passages: readonly EvidencePassage[]): EvidencePassage[] {
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
export function passageFor(
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
export function mention(option: string, p: EvidencePassage | null): { start: number; end: number } {
  if (!p) return { start: -1, end: -1 };
  const at = p.text.toLowerCase().indexOf(option.toLowerCase());
  return at >= 0 ? { start: at, end: at + option.length } : { start: -1, end: -1 };
}

export function baseFeatures(
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
    coverage: 0,
    corroborated: false,
  };
}
