import winkNLP, { type WinkMethods } from 'wink-nlp';
import model from 'wink-eng-lite-web-model';

/**
 * English NLP for entities, noun phrases, numbers, dates and sentences. wink-nlp with its English
 * lite model: part-of-speech tags and entity types from a real model, pure JS, fast enough to run on
 * every chunk at ingest (~1 ms per paragraph) and on every question.
 */
let nlp: WinkMethods | null = null;
function instance(): WinkMethods {
  nlp ??= winkNLP(model);
  return nlp;
}

/** Builds the analyser now rather than on the first question (about 0.3 s): a start-up does it while the index reads. */
export function loadNlp(): void {
  instance();
}

export type MentionKind = 'proper' | 'code' | 'number' | 'date' | 'noun';

export interface Mention {
  text: string;
  kind: MentionKind;
  start: number;
  end: number;
}

export interface TokenInfo {
  text: string;
  pos: string;
  start: number;
  end: number;
  stop: boolean;
}

export interface Analysis {
  text: string;
  tokens: TokenInfo[];
  mentions: Mention[];
  sentences: { text: string; start: number; end: number }[];
  words: number;
  numbers: number;
  dates: number;
}

/** Function words that never make an entity or a bridge, even when capitalised. */
const STOPWORDS = new Set(
  `a about above after again against all am an and any are as at be because been before being below between both but by can could did do does doing down during each few for from further had has have having he her here hers herself him himself his how i if in into is it its itself just me more most my myself no nor not now of off on once only or other our ours ourselves out over own same she should so some such than that the their theirs them themselves then there these they this those through to too under until up very was we were what when where which while who whom whose why will with would you your yours yourself yourselves also may might must shall upon via per than whether either neither yet ever still else often usually etc`.split(/\s+/),
);

const CONNECTOR = new Set(['of', 'de', 'del', 'da', 'di', 'du', 'von', 'van', 'der', 'la', 'le', '&', 'and', "'s", '-', 'the', 'for', 'on']);
const CODE = /^(?=.*\d)(?=.*[A-Za-z])[A-Za-z0-9][A-Za-z0-9._/-]*[A-Za-z0-9]$/;
const DATE_TYPES = new Set(['DATE', 'TIME', 'DURATION']);
const NUMBER_TYPES = new Set(['CARDINAL', 'MONEY', 'PERCENT', 'ORDINAL', 'MEASURE']);

export function isStopword(word: string): boolean {
  return STOPWORDS.has(word.toLowerCase());
}

/**
 * wink's lite model splits words at letters outside Latin-1 ("Gdańsk" → "Gda" "ń" "sk"). It reads a
 * shadow copy where each such letter becomes its base letter (or x), one UTF-16 unit for one, so
 * every offset still points into the original text.
 */
function shadowText(text: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the range is Latin-1, whose first 32 are control characters
  return text.replace(/[^\u0000-\u00ff]/gu, (ch) => {
    if (!/\p{L}/u.test(ch)) return ch;
    const base = ch.normalize('NFD')[0]!;
    const sub = /[A-Za-z]/.test(base) ? base : /\p{Lu}/u.test(ch) ? 'X' : 'x';
    return sub.repeat(ch.length);
  });
}

export function analyze(original: string): Analysis {
  const w = instance();
  const its = w.its;
  const text = shadowText(original);
  const doc = w.readDoc(text);
  const values = doc.tokens().out(its.value) as string[];
  const pos = doc.tokens().out(its.pos) as string[];
  const spaces = doc.tokens().out(its.precedingSpaces) as string[];
  const stops = doc.tokens().out(its.stopWordFlag) as boolean[];
  const tokens = tokensOf(original, text, values, pos, spaces, stops);

  const mentions: Mention[] = [];
  const add = (kind: MentionKind, i: number, j: number) => {
    while (j > i && (CONNECTOR.has(tokens[j]!.text.toLowerCase()) || tokens[j]!.pos === 'PUNCT')) j--;
    while (i < j && (tokens[i]!.stop || tokens[i]!.pos === 'PUNCT')) i++;
    if (j < i) return;
    const start = tokens[i]!.start;
    const end = tokens[j]!.end;
    const s = original.slice(start, end);
    if (!s.trim() || (i === j && tokens[i]!.stop)) return;
    mentions.push({ text: s, kind, start, end });
  };

  properSpans(tokens, add);

  nounPhrases(tokens, add);

  let numbers = 0;
  let dates = 0;
  const entities = doc.entities();
  const details = entities.out(its.detail) as unknown as { value: string; type: string }[];
  const spans = entities.out(its.span) as unknown as [number, number][];
  details.forEach((d, k) => {
    const span = spans[k];
    if (!span) return;
    const [a, b] = span;
    if (DATE_TYPES.has(d.type)) {
      dates++;
      add('date', a, b);
    } else if (NUMBER_TYPES.has(d.type)) {
      numbers++;
      add('number', a, b);
    }
  });
  for (const t of tokens) if (t.pos === 'NUM' && !mentions.some((m) => m.start <= t.start && m.end >= t.end)) numbers++;

  const sentences = joinGlued(
    original,
    (doc.sentences().out(its.span) as unknown as [number, number][]).map(([a, b]) => {
      const start = tokens[a]?.start ?? 0;
      const end = tokens[b]?.end ?? text.length;
      return { text: original.slice(start, end), start, end };
    }),
  );
  const words = tokens.filter((t) => t.pos !== 'PUNCT' && t.pos !== 'SPACE').length;
  return { text: original, tokens, mentions, sentences, words, numbers, dates };
}

export interface EntityOptions {
  limit?: number;
  /**
   * Whether a word is common English (e.g. one word piece in an uncased BERT vocabulary). A single
   * capitalised common word at the start of a sentence ("Storage is …", "Use this …") is a
   * capital letter, not a name.
   */
  isCommonWord?: (word: string) => boolean;
}

/** Distinct named entities (proper-noun spans and part/model codes), first occurrence first. */
export function entitiesOf(a: Analysis, opts: EntityOptions = {}): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  const sentenceStarts = new Set(a.sentences.map((s) => s.start));
  for (const mention of a.mentions) {
    if (mention.kind !== 'proper' && mention.kind !== 'code') continue;
    let text = mention.text;
    // sentence start, or the start of a value after "Key:" / "; "
    const initial = sentenceStarts.has(mention.start) || /[:;]\s*$/.test(a.text.slice(Math.max(0, mention.start - 3), mention.start));
    if (mention.kind === 'proper' && initial && opts.isCommonWord) {
      // "Use the Halden Microsystems sensor": drop the capitalised common first word and its connectors
      const words = text.split(/\s+/);
      if (opts.isCommonWord(words[0]!)) {
        let k = 1;
        while (k < words.length && CONNECTOR.has(words[k]!.toLowerCase())) k++;
        text = words.slice(k).join(' ');
        if (!text) continue;
      }
    }
    const key = text.toLowerCase();
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(text);
    if (out.length >= (opts.limit ?? 40)) break;
  }
  return out;
}

/**
 * Evidence density: entities, numbers and dates per word. A chunk dense in specifics ("the KX-220
 * offset at −20 °C is +0.35 °C") is more likely to hold an answer than boilerplate.
 */
export function evidenceDensity(a: Analysis): number {
  if (a.words === 0) return 0;
  const proper = a.mentions.filter((m) => m.kind === 'proper' || m.kind === 'code').length;
  return Math.min(1, (proper + a.numbers + a.dates) / a.words);
}

export function sentencesOf(original: string): { text: string; start: number; end: number }[] {
  const w = instance();
  const its = w.its;
  const text = shadowText(original);
  const doc = w.readDoc(text);
  const spans = doc.sentences().out(its.span) as unknown as [number, number][];
  if (spans.length <= 1) return [{ text: original, start: 0, end: original.length }];
  // Map token spans back to characters through the lossless token stream.
  const values = doc.tokens().out(its.value) as string[];
  const spaces = doc.tokens().out(its.precedingSpaces) as string[];
  const starts: number[] = [];
  const ends: number[] = [];
  let at = 0;
  for (let i = 0; i < values.length; i++) {
    at += spaces[i]!.length;
    const found = text.indexOf(values[i]!, at);
    const start = found >= 0 && found - at < 4 ? found : at;
    starts.push(start);
    ends.push(start + values[i]!.length);
    at = start + values[i]!.length;
  }
  return joinGlued(
    original,
    spans.map(([a, b]) => ({ text: original.slice(starts[a]!, ends[b]!), start: starts[a]!, end: ends[b]! })),
  );
}

/**
 * Sentences with no space between them are one: wink-nlp breaks "TLSv1.3 (when using …)" after
 * "TLSv1." and "example.com/index" alike, but a sentence ends where white space follows it.
 */
function joinGlued(original: string, sentences: { text: string; start: number; end: number }[]): { text: string; start: number; end: number }[] {
  const out: { text: string; start: number; end: number }[] = [];
  for (const s of sentences) {
    const last = out[out.length - 1];
    if (last && s.start <= last.end && s.start > 0) {
      last.end = Math.max(last.end, s.end);
      last.text = original.slice(last.start, last.end);
    } else out.push({ ...s });
  }
  return out;
}

/** The tokens with their character offsets: wink keeps the text losslessly (token + preceding spaces). */
function tokensOf(
  original: string,
  text: string,
  values: readonly string[],
  pos: readonly string[],
  spaces: readonly string[],
  stops: readonly boolean[],
): TokenInfo[] {
  const tokens: TokenInfo[] = [];
  let at = 0;
  for (let i = 0; i < values.length; i++) {
    at += spaces[i]!.length;
    const v = values[i]!;
    const found = text.indexOf(v, at);
    const start = found >= 0 && found - at < 4 ? found : at;
    tokens.push({ text: original.slice(start, start + v.length), pos: pos[i]!, start, end: start + v.length, stop: stops[i]! || isStopword(v) });
    at = start + v.length;
  }

  return tokens;
}

/** Proper-noun spans ("Project Falcon", "University of Oxford") and part/model codes ("KX-220"). */
function properSpans(tokens: readonly TokenInfo[], add: (kind: MentionKind, i: number, j: number) => void): void {
  for (let i = 0; i < tokens.length; ) {
    const t = tokens[i]!;
    const isProper = (k: number) => {
      const x = tokens[k];
      return !!x && ((x.pos === 'PROPN' && !x.stop) || CODE.test(x.text) || (x.pos !== 'PUNCT' && /^[A-Z][a-z]+[A-Z]/.test(x.text)));
    };
    if (!isProper(i)) {
      i++;
      continue;
    }
    let j = i;
    while (true) {
      if (isProper(j + 1)) j++;
      else if (tokens[j + 1] && CONNECTOR.has(tokens[j + 1]!.text.toLowerCase()) && isProper(j + 2) && tokens[j + 1]!.pos !== 'PUNCT') j += 2;
      else if (tokens[j + 1]?.text === '-' && isProper(j + 2) && tokens[j + 1]!.start === tokens[j]!.end) j += 2;
      else break;
    }
    // "Role: …", "Date: …": a capitalised key before a colon is a label, not an entity.
    if (i === j && tokens[j + 1]?.text === ':' && !CODE.test(t.text)) {
      i = j + 1;
      continue;
    }
    const allCodes = tokens.slice(i, j + 1).every((x) => CODE.test(x.text));
    add(allCodes && i === j ? 'code' : tokens.slice(i, j + 1).some((x) => CODE.test(x.text)) && !tokens.slice(i, j + 1).some((x) => x.pos === 'PROPN' && !CODE.test(x.text)) ? 'code' : 'proper', i, j);
    i = j + 1;
  }
}

/** Noun phrases (ADJ* NOUN+): what a question asks about ("calibration offset", "director"). */
function nounPhrases(tokens: readonly TokenInfo[], add: (kind: MentionKind, i: number, j: number) => void): void {
  for (let i = 0; i < tokens.length; ) {
    if (tokens[i]!.pos !== 'NOUN' && tokens[i]!.pos !== 'ADJ') {
      i++;
      continue;
    }
    let j = i;
    while (tokens[j + 1] && (tokens[j + 1]!.pos === 'NOUN' || tokens[j + 1]!.pos === 'ADJ')) j++;
    let end = j;
    while (end >= i && tokens[end]!.pos !== 'NOUN') end--;
    if (end >= i) add('noun', i, end);
    i = j + 1;
  }
}
