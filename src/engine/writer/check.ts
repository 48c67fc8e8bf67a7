import { sentencesOf } from '../../models/nlp.js';
import type { Snippet } from '../types.js';
import type { WrittenSentence } from './types.js';

/** How close a sentence's content must come to a sentence it cites (see check.fitted.ts). */
export interface SupportJudge {
  /** The best cosine between `sentence` and any of `passages`' sentences (the encoder's). */
  similarity(sentence: string, passages: readonly string[]): Promise<number>;
}

/** A citation as the model writes it: [1], [1, 2], [1][3]. */
const CITATION = /\[(\d+(?:\s*,\s*\d+)*)\]/g;
/** A number as written, with its decimals or thousands ("1,200", "2.4", "10:30"). */
const NUMBER = /\d+(?:[.,:]\d+)*/g;
/** A code token: in backticks, an option, or a word joined by _ . / - or in camelCase. */
const CODE = /`([^`]+)`|(?<![\w-])(--?[A-Za-z][\w-]*|[A-Za-z][\w]*(?:[_./-][\w]+)+|[a-z]+[A-Z]\w*)/g;
/** A capitalised word inside a sentence: part of a proper name. */
const NAME = /(?<=\S\s+)[A-Z][\p{L}\d]+(?:\s+[A-Z][\p{L}\d]+)*/gu;
/** Capitalised words that start clauses or stand alone in English, not names. */
const NOT_NAMES = new Set([
  'I',
  'The',
  'A',
  'An',
  'It',
  'This',
  'That',
  'These',
  'Those',
  'If',
  'When',
  'For',
  'In',
  'On',
  'To',
  'And',
  'Or',
  'But',
]);

/** Text as values are compared: one kind of dash, no thousands separator, single spaces, lowercase. */
function normalized(text: string): string {
  return text
    .normalize('NFKC')
    .replace(/[\u2010-\u2015\u2212]/g, '-')
    .replace(/(\d),(?=\d{3}\b)/g, '$1')
    .replace(/\s+/g, ' ')
    .toLowerCase();
}

/** The sentences of a written answer, each with the citations that follow it (a citation alone joins the sentence before). */
export function splitWritten(text: string): { text: string; citations: number[] }[] {
  const out: { text: string; citations: number[] }[] = [];
  for (const s of sentencesOf(text.trim())) {
    const citations = [...s.text.matchAll(CITATION)].flatMap((m) => m[1]!.split(',').map((n) => Number(n.trim())));
    const body = s.text.replace(CITATION, '').trim();
    const last = out.at(-1);
    if (!/[\p{L}\p{N}]/u.test(body) && last) {
      last.citations.push(...citations);
      last.text = `${last.text} ${s.text.trim()}`;
    } else if (body) out.push({ text: s.text.trim(), citations });
  }
  for (const s of out) s.citations = [...new Set(s.citations)];
  return out;
}

/** The values a sentence states that its sources must hold: numbers, code tokens and names. */
export function valuesOf(sentence: string): string[] {
  const body = sentence.replace(CITATION, ' ');
  const code = [...body.matchAll(CODE)].map((m) => m[1] ?? m[2]!);
  // numbers and names outside the code tokens (the 220 of "KX-220" is the token's)
  const rest = body.replace(CODE, ' ');
  const numbers = rest.match(NUMBER) ?? [];
  const names = (rest.match(NAME) ?? []).filter((n) => !NOT_NAMES.has(n));
  return [...new Set([...numbers, ...code, ...names])];
}

const escaped = (v: string) => v.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * Whether `text` holds `value` as a whole token: "11" is not in "2011", nor "2.4" in "12.45", nor
 * "max" in "maxclients"; a number may stand next to its unit ("30s").
 */
function holds(text: string, value: string): boolean {
  const around = /^[\d.,:]+$/.test(value)
    ? ['(?<!\\d|\\d[.,])', '(?!\\d|[.,]\\d)']
    : ['(?<![\\p{L}\\p{N}_])', '(?![\\p{L}\\p{N}_])'];
  return new RegExp(`${around[0]}${escaped(value)}${around[1]}`, 'u').test(text);
}

/** The first value of `values` that none of `sources` holds (text or title), or null. */
function missingValue(values: readonly string[], sources: readonly string[]): string | null {
  const held = sources.map(normalized);
  for (const v of values) if (!held.some((h) => holds(h, normalized(v)))) return v;
  return null;
}

/** A snippet as a sentence may cite it: its title, headings and text. */
const sourceText = (s: Snippet) => `${s.citation.document} ${s.citation.heading_path.join(' ')} ${s.text}`;

/**
 * Every sentence of a written answer, checked against the evidence it cites: it cites at least one
 * snippet of the reply's evidence; each number, value, code token and name in it stands in a cited
 * snippet (text or title, after normalising units and white space); and its content comes close
 * enough to a cited sentence (`judge`, at `threshold`). A sentence that fails is dropped, with why.
 */
export async function checkWritten(
  text: string,
  evidence: readonly Snippet[],
  judge: SupportJudge,
  threshold: number,
): Promise<WrittenSentence[]> {
  const out: WrittenSentence[] = [];
  for (const s of splitWritten(text)) {
    const drop = (reason: WrittenSentence['reason'], detail: string | null, support: number | null = null) =>
      out.push({ text: s.text, citations: s.citations, kept: false, reason, detail, support });
    if (s.citations.length === 0) {
      drop('no_citation', null);
      continue;
    }
    const bad = s.citations.find((n) => n < 1 || n > evidence.length);
    if (bad !== undefined) {
      drop('bad_citation', `[${bad}]`);
      continue;
    }
    const cited = s.citations.map((n) => evidence[n - 1]!);
    const missing = missingValue(valuesOf(s.text), cited.map(sourceText));
    if (missing !== null) {
      drop('value_not_in_source', missing);
      continue;
    }
    const support = await judge.similarity(
      s.text.replace(CITATION, '').trim(),
      cited.map((c) => c.text),
    );
    if (support < threshold) drop('not_supported', null, support);
    else out.push({ text: s.text, citations: s.citations, kept: true, reason: null, detail: null, support });
  }
  return out;
}
