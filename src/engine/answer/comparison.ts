/**
 * Comparison questions: "Were X and Y of the same nationality?", "Who is older, A or B?", "Which
 * was released first, A or B?". They are answered by reading each compared entity from its own
 * passage: yes/no from the reader's answer-type head over both passages side by side, or one of the
 * two options — by a date read for each (a birth or founding, an event the question names) when the
 * question compares one, else by which option the reader points at.
 *
 * The patterns are English grammar (how a comparison is asked), not words of any corpus; they were
 * written against the reader's training questions and are measured on the evaluation sets. Their
 * words are data (data/comparison.json).
 */
import words from './data/comparison.json' with { type: 'json' };
import { cueFinder, cueMatcher, openingMatcher } from './cues.js';

export interface AttributeQuery {
  /** The sub-question asked of each option's own passage ("When was {} founded?"). */
  template: string;
  value: 'date';
  /** Which date wins: the earliest or the latest. */
  pick: 'min' | 'max';
}

export type ComparisonKind = 'yesno' | 'choice';

/** A choice between two things the question names ("Which was released first, A or B?"), or a yes/no about two. */
export interface ComparisonQuestion {
  kind: ComparisonKind;
  /** The two options as the question names them (for a yes/no question: empty, see namedPassages). */
  options: string[];
  attribute: AttributeQuery | null;
}

const COMPARATIVE = words.comparatives.join('|');
/** A yes/no question opens with an auxiliary. */
const YES_NO_OPENING = openingMatcher(words.auxiliaries);
const SAYS_SAME = cueMatcher(words.sameness);
/** A choice is asked with a wh-word, an auxiliary or "between" first. */
const CHOICE_OPENING = openingMatcher(words.choiceOpenings);

/** The two options of "…, A or B?", "between A and B, …", "Which came first A or B?". */
export function choiceOptions(question: string): string[] | null {
  const q = question
    .trim()
    .replace(/\s+/g, ' ')
    .replace(/\s*\?+\s*$/, '');
  const clean = (s: string) =>
    s
      .trim()
      // an article is grammar ("the Pterocarya"); keeping a capital one as part of a name earned
      // nothing on the sets it was not written from (docs/benchmarks-history.md, "Every rule family ablated")
      .replace(/^(the|a|an)\s+/i, '')
      .replace(/^["'“]|["'”,.]$/g, '')
      .trim();
  const pair = (a: string | undefined, b: string | undefined) => {
    if (!a || !b) return null;
    const x = clean(a);
    const y = clean(b);
    if (!x || !y || x.split(' ').length > 10 || y.split(' ').length > 10 || x.toLowerCase() === y.toLowerCase())
      return null;
    return [x, y];
  };
  // "Between A and B, which …"
  let m = /^between (.+?) and (.+?),/i.exec(q);
  if (m) return pair(m[1], m[2]);
  // "…, A or B" / "…: A or B" (the options close the question)
  m = /[,:]\s*(?:the\s+)?([^,:]+?),? or ([^,:]+)$/i.exec(q);
  if (m) return pair(m[1], m[2]);
  // "Which magazine was published first Guitar World or Chic", "which has more species A or B"
  m = new RegExp(`^(?:[Ww]hich|[Ww]ho)\\b.*?\\b(?:${COMPARATIVE})(?: [a-z]+)? ([A-Z0-9"'“].*?) or (.+)$`).exec(q);
  if (m) return pair(m[1], m[2]);
  return null;
}

const saysEarly = cueMatcher(words.earlyWords);
const saysLate = cueMatcher(words.lateWords);
const saysAge = cueMatcher(words.ageWords);
const saysOlder = cueMatcher(words.olderWords);
const saysBorn = cueMatcher(['born']);
const eventVerbOf = cueFinder(words.eventVerbs);
/** "the film whose director was born later": the attribute belongs to something else, one hop away. */
const RELATIVE_CLAUSE = /\b\w+ (whose|who (was|is|were|died)|that (was|is))\b/;

/**
 * What attribute a choice compares, and which way wins, when the question says (else null): an age
 * or a founding (read as a birth where the option's passage says "born"), or the date of the event
 * the question names.
 */
export function attributeOf(question: string): AttributeQuery | null {
  const q = question.toLowerCase();
  if (RELATIVE_CLAUSE.test(q.replace(/^\s*who\b/, ''))) return null;
  if (saysAge(q)) {
    const early = saysOlder(q) || (saysBorn(q) && saysEarly(q));
    return { template: 'When was {} founded?', value: 'date', pick: early ? 'min' : 'max' };
  }
  const verb = eventVerbOf(q);
  if (verb && (saysEarly(q) || saysLate(q)))
    return { template: `When was {} ${verb}?`, value: 'date', pick: saysEarly(q) ? 'min' : 'max' };
  return null;
}

/** A comparison question, or null. */
export function parseComparison(question: string): ComparisonQuestion | null {
  const q = question.trim();
  const options = choiceOptions(q);
  if (options && CHOICE_OPENING(q)) return { kind: 'choice', options, attribute: attributeOf(q) };
  // "Are X and Y both …", "Were X and Y of the same nationality", "Did X and Y originate from the same
  // country", "Does X have the same nationality as Y": two things and a yes/no
  if (YES_NO_OPENING(q) && SAYS_SAME(q) && /\b(and|as)\b/i.test(q))
    return { kind: 'yesno', options: [], attribute: null };
  return null;
}

// ------------------------------------------------------------------------------ values

const MONTHS = [
  'january',
  'february',
  'march',
  'april',
  'may',
  'june',
  'july',
  'august',
  'september',
  'october',
  'november',
  'december',
];
const MONTH = MONTHS.map((m) => `${m}|${m.slice(0, 3)}\\.?`).join('|');

/**
 * A date read off a span, as a sortable number (year·10⁴ + month·10² + day; unknown parts are 0),
 * or null. "12 May 1950", "May 12, 1950", "1950", "c. 1450", "1950s", "300 BC".
 */
export function parseDate(text: string): number | null {
  const t = text.toLowerCase().replace(/[,]/g, ' ').replace(/\s+/g, ' ');
  const month = (name: string) => MONTHS.findIndex((m) => name.startsWith(m.slice(0, 3))) + 1;
  const bc = /\b(bc|bce)\b/.test(t) ? -1 : 1;
  let m = new RegExp(`\\b(\\d{1,2})(?:st|nd|rd|th)? (?:of )?(${MONTH}) (\\d{3,4})\\b`).exec(t);
  if (m) return bc * (Number(m[3]) * 10_000 + month(m[2]!) * 100 + Number(m[1]));
  m = new RegExp(`\\b(${MONTH}) (\\d{1,2})(?:st|nd|rd|th)? (\\d{3,4})\\b`).exec(t);
  if (m) return bc * (Number(m[3]) * 10_000 + month(m[1]!) * 100 + Number(m[2]));
  m = new RegExp(`\\b(${MONTH}) (\\d{3,4})\\b`).exec(t);
  if (m) return bc * (Number(m[2]) * 10_000 + month(m[1]!) * 100);
  m = /\b(\d{4})-(\d{2})-(\d{2})\b/.exec(t);
  if (m) return Number(m[1]) * 10_000 + Number(m[2]) * 100 + Number(m[3]);
  m = /\b(\d{3,4})s?\b/.exec(t);
  if (m) return bc * Number(m[1]) * 10_000;
  return null;
}

/** Which of two read dates wins, or null when either is missing, they are equal or cannot be ordered. */
export function pickByValue(attribute: AttributeQuery, a: string | null, b: string | null): 0 | 1 | null {
  const x = a === null ? null : parseDate(a);
  const y = b === null ? null : parseDate(b);
  if (x === null || y === null || x === y) return null;
  // a year alone against a full date of the same year cannot be ordered
  if (Math.floor(x / 10_000) === Math.floor(y / 10_000) && (x % 10_000 === 0 || y % 10_000 === 0)) return null;
  const first = attribute.pick === 'min' ? x < y : x > y;
  return first ? 0 : 1;
}
