/**
 * A short answer is whole: a number keeps the unit or the thing it counts and the word that bounds
 * it ("at least 2 reviewers", "about 15 minutes", "5 dimensions"), never a bare "2", "15" or "5".
 * What follows a number is read by its part of speech (wink's tagger) and its plural, not from a
 * list of units; what precedes it is English's closed class of inclusive bounds and approximators
 * (data/qualifiers.json). "More than", "over" and "under" stay out: a limit is stated with them
 * ("joins of more than 64 tables are refused") and its value is the number.
 */
import { analyze, type TokenInfo } from '../../models/nlp.js';
import qualifiers from './data/qualifiers.json' with { type: 'json' };

const QUALIFIERS: readonly string[] = qualifiers.qualifiers
  .map((q) => q.toLowerCase())
  // the longest first: "no more than" before "more than"
  .sort((a, b) => b.length - a.length);

/** A letter or a digit: a qualifier starts a word, it does not end one ("handover 5" is not "over 5"). */
const isWordChar = (ch: string) => ch.toLowerCase() !== ch.toUpperCase() || (ch >= '0' && ch <= '9');

/** A value made of a number only (a sign, digits, separators, a decimal point). */
const BARE_NUMBER = /^[+\-\u2212]?\d[\d,._]*$/;
/** Parts of speech of a word that says what a number counts or measures. */
const COUNTED = new Set(['NOUN', 'PROPN', 'SYM']);
/** An abbreviated unit is short ("8 MB", "30 ms"); a longer capitalised word is a name or a label. */
const UNIT_LETTERS = 3;
/** What may follow a number that stands as a whole token ("64." yes; "1/20th", "3.9.0-rc" no). */
const TOKEN_END = ' \t\n.,;:)!?';

/** The span [start, end) of `text` widened to its whole value, when it is a bare number. */
export function wholeValue(text: string, start: number, end: number): { start: number; end: number } {
  const number = text.slice(start, end).trim();
  if (start < 0 || !BARE_NUMBER.test(number)) return { start, end };
  if (end < text.length && !TOKEN_END.includes(text[end]!)) return { start, end };
  const tokens = analyze(text).tokens;
  const after = tokens.find((t) => t.start >= end);
  const widenedEnd = after && countsWhat(text, end, after, number === '1') ? after.end : end;
  return { start: qualifierStart(text, start), end: widenedEnd };
}

/**
 * Whether the token right after a number says what it counts or measures: a plural noun ("5
 * dimensions", "90 days"), a singular one after "1" ("1 hour"), a short unit ("8 MB", "%"). A
 * singular noun after another number is something else ("1998 book", "500 error", "3.9.0 use").
 */
function countsWhat(text: string, end: number, t: TokenInfo, one: boolean): boolean {
  const gap = text.slice(end, t.start);
  if ((gap !== '' && gap !== ' ') || !COUNTED.has(t.pos)) return false;
  const word = t.text;
  if (word === '%') return true;
  const lower = word === word.toLowerCase();
  if (!lower) return word.length <= UNIT_LETTERS && word === word.toUpperCase();
  return one || (word.endsWith('s') && !word.endsWith('ss'));
}

/** Where a qualifier right before the number starts ("at least 2"), or the number's own start. */
function qualifierStart(text: string, start: number): number {
  const before = text.slice(0, start).toLowerCase();
  for (const q of QUALIFIERS) {
    const at = before.length - q.length - 1;
    if (at >= 0 && before.endsWith(`${q} `) && (at === 0 || !isWordChar(before[at - 1]!))) return at;
  }
  return start;
}
