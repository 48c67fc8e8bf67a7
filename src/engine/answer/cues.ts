/**
 * Cue lists as data (data/cues.json, data/answer-types.json, data/comparison.json), matched as whole
 * words: a cue is a phrase, never a pattern, so what a list holds is what it matches ("default" does
 * not match "defaultsfile", "max" does not match "max_connections").
 */

/** Escapes a phrase for use inside a regular expression. */
const escapePattern = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The phrases as alternatives of a pattern: each escaped, a run of space matching any white space. */
const alternativesOf = (phrases: readonly string[]) =>
  phrases.map((p) => p.split(' ').filter(Boolean).map(escapePattern).join('\\s+')).join('|');

/** Not inside a word: no letter, digit or underscore on either side (a snake_case name is one word). */
const BEFORE = '(?<![\\p{L}\\p{N}_])';
const AFTER = '(?![\\p{L}\\p{N}_])';

/** Whether a text says any of the phrases as whole words (case-insensitive; runs of space match any white space). */
export function cueMatcher(phrases: readonly string[]): (text: string) => boolean {
  if (!phrases.length) return () => false;
  const pattern = new RegExp(`${BEFORE}(?:${alternativesOf(phrases)})${AFTER}`, 'iu');
  return (text) => pattern.test(text);
}

/** The phrase a text says first, as whole words (case-insensitive), as the list writes it; null if none. */
export function cueFinder(phrases: readonly string[]): (text: string) => string | null {
  if (!phrases.length) return () => null;
  const pattern = new RegExp(`${BEFORE}(${alternativesOf(phrases)})${AFTER}`, 'iu');
  const byLower = new Map(phrases.map((p) => [p.toLowerCase(), p]));
  return (text) => {
    const said = pattern.exec(text)?.[1];
    return said === undefined ? null : (byLower.get(said.toLowerCase().replace(/\s+/g, ' ')) ?? said);
  };
}

/** Whether a text opens with one of the phrases as whole words ("where …", "how to …"). */
export function openingMatcher(phrases: readonly string[]): (text: string) => boolean {
  if (!phrases.length) return () => false;
  const pattern = new RegExp(`^\\s*(?:${alternativesOf(phrases)})${AFTER}`, 'iu');
  return (text) => pattern.test(text);
}

/**
 * Whether a text asks "which/what … <noun>": a wh-word, an optional "'s/is/are" and article, at most
 * `reach` more words, then one of the nouns as a whole word ("what's the default keep-alive timeout",
 * "which Apache module"). The head noun of the wh-phrase says the kind of the answer.
 */
export function whPhraseMatcher(nouns: readonly string[], reach: number): (text: string) => boolean {
  if (!nouns.length) return () => false;
  const pattern = new RegExp(
    `${BEFORE}(?:which|what)(?:'s| is| are)?${AFTER}(?: (?:the|a|an))?(?: [\\p{L}\\p{N}_'’-]+){0,${reach}}? (?:${alternativesOf(nouns)})${AFTER}`,
    'iu',
  );
  return (text) => pattern.test(text);
}
