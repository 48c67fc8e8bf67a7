/**
 * The kind of value a question asks for, read from its words, and how well a span of the evidence
 * fits it. The reader was trained on Wikipedia QA: asked "how much memory do maintenance operations
 * get by default?", it reads the description ("the maximum amount of memory") as readily as the
 * value ("64MB"). Manuals answer with values, names, commands, options, file names and paths; a
 * span of the wrong kind is passed over for one of the right kind, and a value's span ends at the
 * value.
 *
 * The question's cues are data (data/answer-types.json). They were written and tuned on
 * teamdocs-apache and the Wikipedia sets, never on teamdocs-git; each group was then ablated on the
 * sets it was not written from, and those that earned nothing there went (docs/benchmarks-history.md, "Every rule
 * family ablated"). A classifier on the question's sentence embedding, trained on TREC's question
 * types and the tuning sets' answers, was measured against them and lost (the same section).
 */
import cues from './data/cues.json' with { type: 'json' };
import types from './data/answer-types.json' with { type: 'json' };
import { cueMatcher, openingMatcher, whPhraseMatcher } from './cues.js';

export type ExpectedType =
  /** A number, with or without its unit: how many, how much, how long, a default, a limit, a year. */
  | 'number'
  /** A name as written in the documents: a module, program, directive, option, variable, file. */
  | 'identifier'
  /** A place in a file system (or a stream): "where does … write". */
  | 'path'
  /** What to run or write to do something: "how do I …" is answered by a command, option or line. */
  | 'command'
  /** Nothing the words say: the reader's own ranking decides. */
  | 'any';

/** How many words may stand between a wh-word and the noun that heads its phrase ("what's the default keep-alive timeout"). */
const WH_REACH = 3;
/** "What's the largest …", "what is the longest …", "what are the fewest …". */
const SUPERLATIVE_CUES = types.superlatives.flatMap((w) => [
  `what's the ${w}`,
  `what is the ${w}`,
  `what are the ${w}`,
]);

const asksPath = [openingMatcher(types.pathOpenings), cueMatcher(types.pathCues)];
const asksNumber = [
  cueMatcher(types.numberCues),
  cueMatcher(SUPERLATIVE_CUES),
  whPhraseMatcher(types.quantityNouns, WH_REACH),
];
const asksName = [whPhraseMatcher(types.nameNouns, WH_REACH)];
const asksHowTo = [cueMatcher(types.howToCues), openingMatcher(types.howToOpenings)];
const says = (matchers: readonly ((q: string) => boolean)[], question: string) => matchers.some((m) => m(question));

/**
 * The kind of value a question asks for, from the cue lists of data/answer-types.json. The first kind
 * whose cues the question says decides, most specific first: "where" a path; a number before a name
 * ("which module … how many" asks for a number); a name; a how-to a command.
 */
export function expectedType(question: string): ExpectedType {
  if (says(asksPath, question)) return 'path';
  if (says(asksNumber, question)) return 'number';
  if (says(asksName, question)) return 'identifier';
  if (says(asksHowTo, question)) return 'command';
  return 'any';
}

const UNITS =
  'bytes?|[kmgt]i?b|[kmgt]bytes|kilobytes?|megabytes?|gigabytes?|bits?|ms|milliseconds?|µs|us|microseconds?|ns|nanoseconds?|s|secs?|seconds?|mins?|minutes?|h|hrs?|hours?|days?|weeks?|months?|years?|%|percent|°\\s?[cf]|k|requests?|connections?|threads?|processes|children|entries|files|lines|times|characters?';
const NUMBER_WORDS =
  'zero|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|thirty|forty|fifty|sixty|hundred|thousand|million|half|a|an';
/** A number's scale word is part of it: "150 million", not "150". */
const SCALE_WORDS = 'thousand|million|billion|trillion';
/** A value: a number (signed, decimal, grouped, a version or range) with its scale word and unit, or a number word and a unit. */
const VALUE = new RegExp(
  `(?:^|(?<=[\\s(:=,;"'\`]))(?:[+\\-\u2212±~]?\\d[\\d,._]*(?:\\s?(?:-|to|–)\\s?\\d[\\d,._]*)?(?:\\s(?:${SCALE_WORDS})\\b)?(?:\\s?(?:${UNITS})(?:\\b|(?<=%)))?|(?:${NUMBER_WORDS})\\s(?:${UNITS})\\b)`,
  'giu',
);
const NUMBER_WORD_START = new RegExp(`^(?:${NUMBER_WORDS})\\s`, 'i');
/** Code-like: an option, a path, dotted or snake or camel case, a %-format, a flag in brackets. */
const CODE_LIKE =
  /(^-{1,2}\w)|[/\\]|\w[._]\w|[a-z][A-Z]|^[A-Z][a-z]+[A-Z]|^%|^\[|^\+|^[A-Z0-9_]{3,}$|\w+=\S|[<>{}]|^mod_|\(\)$/;
const ARTICLE_START = /^(the|a|an|this|that|these|those|its|their|each|every|any|some)\s/i;

/** Words of a span (a value with its unit is one thing, and counts little). */
const wordCount = (s: string) => s.split(/\s+/).filter(Boolean).length;

/** The span's first value ("+0.30 °C" of "+0.30 °C to the Vantor TS-40"), as offsets into the span. */
export function firstValue(span: string): { start: number; end: number } | null {
  for (const m of span.matchAll(VALUE)) {
    if (!/\d/.test(m[0]) && !NUMBER_WORD_START.test(m[0])) continue;
    const text = m[0].replace(/[,.;:]+$/, '');
    return { start: m.index!, end: m.index! + text.length };
  }
  return null;
}

/**
 * How well a span fits the expected type: 1 it is of that type, 0 cannot tell, −1 it is not (a
 * description where a value is asked for, a sentence where a name is asked for).
 */
export function typeFit(expected: ExpectedType, span: string): -1 | 0 | 1 {
  const s = span.trim();
  const words = wordCount(s);
  switch (expected) {
    case 'number':
      if (firstValue(s)) return words <= 6 ? 1 : 0;
      // a version, an error code or a level with its number, as one token ("TLSv1.2", "AH00534", "trace8");
      // a name with a number in it ("Vantor TS-40") is not a value
      if (words === 1 && /\d/.test(s)) return 1;
      return -1;
    case 'identifier':
      if (words <= 4 && CODE_LIKE.test(s)) return 1;
      if (ARTICLE_START.test(s) || words > 5) return -1;
      return 0;
    case 'command':
      if (words <= 6 && CODE_LIKE.test(s)) return 1;
      if (ARTICLE_START.test(s) || words > 8) return -1;
      return 0;
    case 'path':
      if (words <= 3 && (/[/\\]/.test(s) || /^(stdin|stdout|stderr)$/i.test(s))) return 1;
      if (ARTICLE_START.test(s) || words > 5) return -1;
      return 0;
    default:
      return 0;
  }
}

/**
 * The part of a span that is the value the question asks for: for a number, the first value and its
 * unit ("+0.35 °C", not "+0.30 °C to the Vantor TS-40"); otherwise the span as read.
 */
export function valueWithin(expected: ExpectedType, span: string): { start: number; end: number } {
  const whole = { start: 0, end: span.length };
  // a span that is more than its value is cut to the value and its unit ("ListenBackLog 511" → "511",
  // "30 seconds by default" → "30 seconds"; "8 kB" and "one minute" are values whole)
  if (expected === 'number') return firstValue(span) ?? whole;
  const tokens = [...span.matchAll(TOKEN)]
    .map((m) => ({ word: m[0].replace(EDGE_PUNCT, ''), start: m.index!, end: m.index! + m[0].length }))
    .filter((t) => t.word);
  if (tokens.length < 2) return whole;
  // a place is the path itself ("file logs/httpd.pid" → "logs/httpd.pid")
  if (expected === 'path') {
    const place = tokens.find((t) => /[/\\]/.test(t.word) || /^(stdin|stdout|stderr)$/i.test(t.word));
    return place ? withoutLoosePunctuation(span, place.start, place.end) : whole;
  }
  if (expected !== 'identifier' && expected !== 'command') return whole;
  // a name or command without the prose around it: "use LogLevel warn core:info" → "LogLevel warn
  // core:info", "htdigest tool" → "htdigest", "SSL_XXX variables" → "SSL_XXX"
  const codeAfter = (i: number) => tokens.slice(i + 1).some((t) => CODE_LIKE.test(t.word));
  let first = 0;
  while (
    first < tokens.length - 1 &&
    (ARTICLE.test(tokens[first]!.word) || (LEAD_VERB.test(tokens[first]!.word) && codeAfter(first)))
  )
    first += 1;
  let last = tokens.length - 1;
  if (expected === 'identifier' && last - first === 1 && KIND_NOUNS.has(tokens[last]!.word.toLowerCase())) last -= 1;
  if (first === 0 && last === tokens.length - 1) return whole;
  return withoutLoosePunctuation(span, tokens[first]!.start, tokens[last]!.end);
}

const CLOSER: Record<string, string> = { '(': ')', '[': ']', '{': '}', '<': '>' };
const OPENER: Record<string, string> = { ')': '(', ']': '[', '}': '{', '>': '<' };
const QUOTES = `"'\``;
const count = (s: string, c: string) => s.split(c).length - 1;

/**
 * A range of whole tokens without the punctuation that belongs to the sentence around them: a
 * trailing full stop or comma, brackets or quotes around all of it, and an opening or closing mark
 * whose other half was cut off. Brackets that belong to the value stay: "named <commit>", "%{c}a".
 */
function withoutLoosePunctuation(text: string, start: number, end: number): { start: number; end: number } {
  let s = start;
  let e = end;
  for (;;) {
    const [head, tail] = loosePunctuation(text.slice(s, e));
    if (!head && !tail) return { start: s, end: e };
    s += head;
    e -= tail;
  }
}

/** How many characters to drop at the head and at the tail of a value (0 or 1 each): one step. */
function loosePunctuation(t: string): [number, number] {
  if (t.length < 2) return [0, 0];
  const head = t[0]!;
  const tail = t[t.length - 1]!;
  if (/[,;:.!?]/.test(tail)) return [0, 1];
  if (CLOSER[head] === tail || (QUOTES.includes(head) && head === tail)) return [1, 1];
  if (CLOSER[head] && count(t, head) > count(t, CLOSER[head]!)) return [1, 0];
  if (OPENER[tail] && count(t, tail) > count(t, OPENER[tail]!)) return [0, 1];
  if (QUOTES.includes(head) && count(t, head) % 2 === 1) return [1, 0];
  if (QUOTES.includes(tail) && count(t, tail) % 2 === 1) return [0, 1];
  return [0, 0];
}

const ARTICLE = /^(the|a|an)$/i;
/** Prose that leads into a command or name in a how-to ("use", "run"), never a part of it when code follows. */
const LEAD_VERB = /^(use|using|run|running|type|typing|enter|call|calling|invoke|specify|via|try|then)$/i;
/** The kind of thing a name is, written after it ("the htdigest tool", "the KeepAlive directive"). */
const KIND_NOUNS = new Set(types.nameNouns.flatMap((n) => [n, `${n}s`]));

/**
 * Whether a question asks for a default: it says one of the cues of data/cues.json ("default", "by
 * default", "out of the box") as whole words. A manual writes the answer under "Default".
 */
const DEFAULT_CUES = cueMatcher(cues.defaultCues);

export function asksForDefault(question: string): boolean {
  return DEFAULT_CUES(question);
}

/** How far before a value its sentence may name the default ("The default value in this file is 300"). */
const DEFAULT_REACH = 60;
const DEFAULT_WORD = /\bdefault(?:s|ed)?\b/i;
/** A default the text gives as history ("In 2.4.53 and earlier, the default value was 0"). */
const PAST_DEFAULT = /\bdefault(?:s|ed)?\b.*\b(?:was|were|used to)\b/i;
const SENTENCE_BREAK = /[.!?]\s|\n/g;

/**
 * Whether the prose just before `at` states a default, within its own sentence: "defaults to 5",
 * "The default is RES_TIMEOUT, currently 5", "(integer; default: 1000)"; not one it gives as
 * history ("the default value was 180"). A manual that has no table of defaults says them so.
 */
export function statesDefaultBefore(text: string, at: number): boolean {
  const from = Math.max(0, at - DEFAULT_REACH);
  const before = text.slice(from, at);
  const breaks = [...before.matchAll(SENTENCE_BREAK)];
  const last = breaks.at(-1);
  const clause = last ? before.slice(last.index + last[0].length) : before;
  return DEFAULT_WORD.test(clause) && !PAST_DEFAULT.test(clause);
}

/** A token as written, without the punctuation around it ("(force-gzip)," → "force-gzip"). */
const TOKEN = /[^\s]+/g;
const EDGE_PUNCT = /^[("'`[{<,;:]+|[)"'`\]}>,;:.!?]+$/g;
const HYPHENATED = /^[a-z0-9]+(?:-[a-z0-9]+)+$/i;

/**
 * Where values of the expected type stand in a text, as character ranges: the spans the reader must
 * weigh whatever its own top logits say ("warn" of "Default: LogLevel warn", "USR1", "AH00534").
 */
export function typedRanges(expected: ExpectedType, text: string): [number, number][] {
  const out: [number, number][] = [];
  if (expected === 'any') return out;
  if (expected === 'number') {
    for (const m of text.matchAll(VALUE)) {
      const v = m[0].replace(/[,.;:]+$/, '');
      if (/\d/.test(v) || NUMBER_WORD_START.test(v)) out.push([m.index!, m.index! + v.length]);
    }
  }
  for (const m of text.matchAll(TOKEN)) {
    const lead = /^[("'`[{<,;:]*/.exec(m[0])![0].length;
    const word = m[0].replace(EDGE_PUNCT, '');
    if (!word) continue;
    const at = m.index! + lead;
    const range: [number, number] = [at, at + word.length];
    const fits =
      expected === 'number'
        ? /\d/.test(word) && /[a-z]/i.test(word)
        : expected === 'path'
          ? /[/\\]/.test(word) || /^(stdin|stdout|stderr)$/i.test(word)
          : CODE_LIKE.test(word) || HYPHENATED.test(word);
    if (fits && !out.some(([a, b]) => a === range[0] && b === range[1])) out.push(range);
  }
  return out;
}
