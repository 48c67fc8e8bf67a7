import { isStopword } from '../models/nlp.js';

/** Lower-case word stems for overlap tests: accents folded, minus signs unified, short plural -s cut. */
export function contentTerms(text: string): string[] {
  return (
    text
      .normalize('NFKD')
      .replace(/[\u0300-\u036f]/g, '')
      .replace(/[\u2212\u2012\u2013\u2014]/g, '-')
      .toLowerCase()
      .match(/[\p{L}\p{N}]+(?:[.,][\p{N}]+)*/gu) ?? []
  )
    .filter((w) => !isStopword(w) && (w.length > 1 || /\d/.test(w)))
    .map((w) => (w.length > 4 && w.endsWith('s') && !w.endsWith('ss') ? w.slice(0, -1) : w));
}

/** A name folded for comparison: case and runs of white space do not tell two names apart. */
export function foldName(s: string): string {
  return s.toLowerCase().replace(/\s+/g, ' ').trim();
}

export function termSet(text: string): Set<string> {
  return new Set(contentTerms(text));
}

/** Share of `terms` present in `set`. */
function coverage(terms: readonly string[], set: ReadonlySet<string>): number {
  if (terms.length === 0) return 0;
  return terms.filter((t) => set.has(t)).length / terms.length;
}

/** Share of the question's content words that a text contains. */
export function evidenceCoverage(question: string, evidenceText: string): number {
  return coverage(contentTerms(question), termSet(evidenceText));
}
