import { sentencesOf } from '../../models/nlp.js';
import { wholeValue } from '../answer/whole-value.js';
import type { Snippet } from '../types.js';
import type { WrittenSentence } from './types.js';

/** How close a sentence's content must come to a sentence it cites (the threshold: support.ts). */
export interface SupportJudge {
  /** The best cosine between `sentence` and any of `passages`' sentences (the encoder's). */
  similarity(sentence: string, passages: readonly string[]): Promise<number>;
}

/** A citation as the model writes it: [1], [1, 2], [1][3]. */
const CITATION = /\[(\d+(?:\s*,\s*\d+)*)\]/g;
/** A number as written, with its sign where one leads it, its decimals or thousands ("−20", "1,200", "2.4", "10:30"). */
const NUMBER = /(?:(?<![\w.])[+\-\u2212])?\d+(?:[.,:]\d+)*/g;
/** A date as a whole ("2024-05-01"): its parts alone would match another date's. */
const ISO_DATE = /\b\d{4}-\d{2}-\d{2}\b/g;
/** Citations written after a sentence's full stop ("… 5. [1] B …"): moved before it, so the sentence splitter ends the sentence after them. */
const CITATIONS_AFTER_END = /([.!?])((?:\s*\[\d+(?:\s*,\s*\d+)*\])+)/g;
/** Citations that lead a segment: they belong to the sentence before ("… 5. [1] B is 6."). */
const LEADING_CITATIONS = /^(?:\s*\[\d+(?:\s*,\s*\d+)*\])+/;
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
  const citationsIn = (t: string) =>
    [...t.matchAll(CITATION)].flatMap((m) => m[1]!.split(',').map((n) => Number(n.trim())));
  const placed = text.trim().replace(CITATIONS_AFTER_END, (_, end: string, cites: string) => ` ${cites.trim()}${end}`);
  for (const s of sentencesOf(placed)) {
    let segment = s.text.trim();
    const last = out.at(-1);
    const leading = LEADING_CITATIONS.exec(segment)?.[0];
    if (leading && last) {
      last.citations.push(...citationsIn(leading));
      last.text = `${last.text} ${leading.trim()}`;
      segment = segment.slice(leading.length).trim();
    }
    const citations = citationsIn(segment);
    const body = segment.replace(CITATION, '').trim();
    if (!/[\p{L}\p{N}]/u.test(body) && last) {
      last.citations.push(...citations);
      if (segment) last.text = `${last.text} ${segment}`;
    } else if (body) out.push({ text: segment, citations });
  }
  for (const s of out) s.citations = [...new Set(s.citations)];
  return out;
}

/** The values a sentence states that its sources must hold: numbers, code tokens and names. */
export function valuesOf(sentence: string): string[] {
  const body = sentence.replace(CITATION, ' ');
  const dates = body.match(ISO_DATE) ?? [];
  const noDates = body.replace(ISO_DATE, ' ');
  const code = [...noDates.matchAll(CODE)].map((m) => m[1] ?? m[2]!);
  // numbers and names outside the code tokens (the 220 of "KX-220" is the token's)
  const rest = noDates.replace(CODE, ' ');
  // a number with the unit or the thing it counts ("30 s", "90 days", "8 MB"), as the reader keeps it whole
  const numbers = [...rest.matchAll(NUMBER)].map((m) =>
    rest.slice(m.index, wholeValue(rest, m.index, m.index + m[0].length).end),
  );
  const names = (rest.match(NAME) ?? []).filter((n) => !NOT_NAMES.has(n));
  return [...new Set([...dates, ...numbers, ...code, ...names])];
}

const escaped = (v: string) => v.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * Whether `text` holds `value` as a whole token: "11" is not in "2011", nor "2.4" in "12.45", nor
 * "max" in "maxclients"; a number may stand next to its unit ("30s").
 */
function holds(text: string, value: string): boolean {
  const measured = /^([+-]?\d[\d.,:]*)\s*(\S.*)$/.exec(value);
  if (measured && !/^[\d.,:]/.test(measured[2]!)) {
    // a number and its unit: the same unit, with or without a space ("30 s", "30s")
    return new RegExp(
      `${numberBefore(measured[1]!)}${escaped(measured[1]!)}\\s?${escaped(measured[2]!)}(?![\\p{L}\\p{N}_])`,
      'u',
    ).test(text);
  }
  const around = /^[+-]?[\d.,:]+$/.test(value)
    ? // a number: no digit, decimal or time part runs on either side
      [numberBefore(value), '(?!\\d|[.,:]\\d)']
    : // a word or token: not part of a longer one ("cache" is not in "no-cache")
      ['(?<![\\p{L}\\p{N}_]|[\\p{L}\\p{N}_][-.])', '(?![\\p{L}\\p{N}_]|[-.][\\p{L}\\p{N}_])'];
  return new RegExp(`${around[0]}${escaped(value)}${around[1]}`, 'u').test(text);
}

/** What may not stand right before a number: a digit or decimal run, and a sign when the number has none. */
function numberBefore(number: string): string {
  return `(?<!\\d|\\d[.,:]${/^[+-]/.test(number) ? '' : '|(?:^|[\\s(])[-+]'})`;
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
