/**
 * Cue lists as data (data/cues.json), matched as whole words: a cue is a phrase, never a pattern,
 * so what a list holds is what it matches ("default" does not match "defaultsfile").
 */

/** Escapes a phrase for use inside a regular expression. */
const escapePattern = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Whether a text says any of the phrases as whole words (case-insensitive; runs of space match any white space). */
export function cueMatcher(phrases: readonly string[]): (text: string) => boolean {
  if (!phrases.length) return () => false;
  const alternatives = phrases.map((p) => p.split(' ').filter(Boolean).map(escapePattern).join('\\s+'));
  const pattern = new RegExp(`(?<![\\p{L}\\p{N}])(?:${alternatives.join('|')})(?![\\p{L}\\p{N}])`, 'iu');
  return (text) => pattern.test(text);
}
