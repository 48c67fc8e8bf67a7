/**
 * Comparison questions: "Were X and Y of the same nationality?", "Who is older, A or B?", "Which
 * was released first, A or B?". They are answered by reading each compared entity from its own
 * passage: yes/no from the reader's answer-type head over both passages side by side, or one of the
 * two options — by an attribute read for each (a date, a count) when the question compares one,
 * else by which option the reader points at.
 *
 * The patterns are English grammar (how a comparison is asked), not words of any corpus; they were
 * written against the reader's training questions and are measured on the evaluation sets.
 */

export type ComparisonKind = 'yesno' | 'choice';

export interface AttributeQuery {
  /** The sub-question asked of each option's own passage ("When was {} born?"). */
  template: string;
  value: 'date' | 'number';
  /** Which value wins: the earliest / smallest, or the latest / largest. */
  pick: 'min' | 'max';
}

export interface ComparisonQuestion {
  kind: ComparisonKind;
  /** The two options as the question names them (for a yes/no question: empty, see namedPassages). */
  options: string[];
  attribute: AttributeQuery | null;
}

const COMPARATIVE =
  'first|earlier|later|last|older|younger|more|most|fewer|less|larger|smaller|bigger|longer|shorter|taller|higher|lower';
const WH = /\b(what|which|who|whom|whose|where|when|why|how)\b/i;
// a proper name: capitalised words (or figures), with the particles names carry
const NAME_RUN = String.raw`[A-Z0-9"'“][^\s]*(?:\s+(?:[A-Z0-9"'“(][^\s]*|of|de|la|le|du|the|and|v\.|von|van|der|del|da|di|y|al-\S+|ibn|bin))*`;
const AUX = /^(are|is|was|were|do|does|did|has|have|had|can|could|will|would|should)\b/i;

/** The two options of "…, A or B?", "between A and B, …", "… out of A and B?", "Did A or B come first?". */
export function choiceOptions(question: string): string[] | null {
  const q = question
    .trim()
    .replace(/\s+/g, ' ')
    .replace(/\s*\?+\s*$/, '');
  const clean = (s: string) =>
    s
      .trim()
      // a lowercase article is grammar ("the Pterocarya"); a capital one inside the question is part
      // of the name ("The Exies")
      .replace(/^(the|a|an)\s+/, '')
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
  // "Who is older out of A and B" / "Which of A and B …"
  m =
    /^(?:who|which|what)\b.*?\bout of (.+?) (?:and|or) (.+)$/i.exec(q) ??
    /^(?:who|which) of (.+?) (?:and|or) (.+?)(?: (?:is|was|has|had|were|are)\b.*)?$/i.exec(q);
  if (m) return pair(m[1], m[2]);
  // "Did A or B come first" / "Which man, A or B, composed …"
  // "Did A or B come first", "Is the A or B native to Japan": B is the run of names before the verb
  m = new RegExp(
    `^(?:[Dd]id|[Ww]as|[Ww]ere|[Ii]s|[Aa]re|[Dd]oes|[Dd]o|[Hh]as|[Hh]ave)\\s+(?:the\\s+)?(.+?) or (?:the\\s+)?(${NAME_RUN})\\s+[a-z]`,
  ).exec(q);
  if (m) return pair(m[1], m[2]);
  m = /^(?:which|who)\b[^,]*,\s*(.+?) or (.+?),/i.exec(q);
  if (m) return pair(m[1], m[2]);
  // "Which magazine was published first Guitar World or Chic", "which has more species A or B"
  m = new RegExp(`^(?:[Ww]hich|[Ww]ho)\\b.*?\\b(?:${COMPARATIVE})(?: [a-z]+)? ([A-Z0-9"'“].*?) or (.+)$`).exec(q);
  if (m) return pair(m[1], m[2]);
  return null;
}

const EVENT_VERBS =
  'released|published|founded|established|formed|created|started|opened|built|made|produced|written|launched|premiered|began|begun|introduced|discovered|invented|completed|signed|adopted|recorded|issued|designed|developed|constructed|incorporated|debuted|aired|broadcast|elected|appointed|decided';
const EARLY = /\b(first|earlier|earliest|sooner|before|previously|older|oldest)\b/i;
const LATE = /\b(later|latest|last|more recently|most recently|after|newer|newest|younger|youngest)\b/i;

/** What attribute a choice compares, and which way wins, when the question says (else null). */
export function attributeOf(question: string): AttributeQuery | null {
  const q = question.toLowerCase();
  // "the film whose director was born later": the attribute belongs to something else, one hop away
  if (/\b\w+ (whose|who (was|is|were|died)|that (was|is))\b/.test(q.replace(/^\s*who\b/, ''))) return null;
  const person =
    /^\s*(who|whom)\b/.test(q) ||
    /\b(born|person|man|woman|actor|actress|singer|director|author|writer|player|musician|politician)\b/.test(q);
  if (/\bdied\b|\bdeath\b/.test(q) && (EARLY.test(q) || LATE.test(q)))
    return { template: 'When did {} die?', value: 'date', pick: EARLY.test(q) ? 'min' : 'max' };
  if (/\b(older|oldest|younger|youngest)\b/.test(q) || /\bborn\b/.test(q)) {
    const early = /\b(older|oldest)\b/.test(q) || (/\bborn\b/.test(q) && EARLY.test(q));
    if (person) return { template: 'When was {} born?', value: 'date', pick: early ? 'min' : 'max' };
    return { template: 'When was {} founded?', value: 'date', pick: early ? 'min' : 'max' };
  }
  const verb = new RegExp(`\\b(${EVENT_VERBS})\\b`).exec(q);
  if (verb && (EARLY.test(q) || LATE.test(q)))
    return { template: `When was {} ${verb[1]}?`, value: 'date', pick: EARLY.test(q) ? 'min' : 'max' };
  if (/\b(come|came) (first|earlier|before)\b|\bwas (first|earlier)\b|\bhappened first\b/.test(q))
    return { template: 'When did {} happen?', value: 'date', pick: 'min' };
  // "Which opera has more acts, …": a count, when the counted noun closes the clause
  const more = /\b(more|most|fewer|less|least)\s+([a-z]+)\s*(?:[,:]|$| [A-Z0-9"'“])/.exec(
    `${question.split(/,| or /)[0]!.replace(/^\w/, (c) => c.toLowerCase())},`,
  );
  if (more && !/^(than|likely|popular|famous|recently|common|successful)$/.test(more[2]!)) {
    return {
      template: `How many ${more[2]} does {} have?`,
      value: 'number',
      pick: /^(more|most)$/.test(more[1]!) ? 'max' : 'min',
    };
  }
  return null;
}

/** A comparison question, or null. */
export function parseComparison(question: string): ComparisonQuestion | null {
  const q = question.trim();
  const options = choiceOptions(q);
  if (options && /^(who|which|what|whom|whose|did|was|were|is|are|does|between)\b/i.test(q))
    return { kind: 'choice', options, attribute: attributeOf(q) };
  // "Are X and Y both …", "Were X and Y of the same nationality", "Did X and Y originate from the same
  // country", "Does X have the same nationality as Y": two things and a yes/no
  if (
    AUX.test(q) &&
    (/\b(both|same|either|neither)\b/i.test(q) || /\b(as well as|in common)\b/i.test(q)) &&
    /\b(and|as)\b/i.test(q)
  )
    return { kind: 'yesno', options: [], attribute: null };
  // a statement asked as a question: "X and Y are both American film directors?"
  if (!WH.test(q) && /\?\s*$/.test(q) && /\b(both|same)\b/i.test(q) && /\band\b/i.test(q))
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

const WORD_NUMBERS: Record<string, number> = {
  one: 1,
  two: 2,
  three: 3,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
  eight: 8,
  nine: 9,
  ten: 10,
  eleven: 11,
  twelve: 12,
  thirteen: 13,
  fourteen: 14,
  fifteen: 15,
  sixteen: 16,
  seventeen: 17,
  eighteen: 18,
  nineteen: 19,
  twenty: 20,
  thirty: 30,
  forty: 40,
  fifty: 50,
  hundred: 100,
};

/** A count or quantity read off a span ("about 1,200", "three", "2.5 million"), or null. */
export function parseNumber(text: string): number | null {
  const t = text.toLowerCase().replace(/(\d),(\d{3})/g, '$1$2');
  const m = /(-?\d+(?:\.\d+)?)\s*(thousand|million|billion)?/.exec(t);
  if (m) {
    const scale = m[2] === 'thousand' ? 1e3 : m[2] === 'million' ? 1e6 : m[2] === 'billion' ? 1e9 : 1;
    return Number(m[1]) * scale;
  }
  const w = /\b([a-z]+)\b/g;
  for (const x of t.matchAll(w)) if (WORD_NUMBERS[x[1]!] !== undefined) return WORD_NUMBERS[x[1]!]!;
  return null;
}

/** Which of two read values wins, or null when either is missing or they are equal. */
export function pickByValue(attribute: AttributeQuery, a: string | null, b: string | null): 0 | 1 | null {
  const parse = attribute.value === 'date' ? parseDate : parseNumber;
  const x = a === null ? null : parse(a);
  const y = b === null ? null : parse(b);
  if (x === null || y === null || x === y) return null;
  // a year alone against a full date of the same year cannot be ordered
  if (
    attribute.value === 'date' &&
    Math.floor(x / 10_000) === Math.floor(y / 10_000) &&
    (x % 10_000 === 0 || y % 10_000 === 0)
  )
    return null;
  const first = attribute.pick === 'min' ? x < y : x > y;
  return first ? 0 : 1;
}
