/** How the PostgreSQL backend reads text for full-text search, alike with FTS5's. */

/** Joins a query's terms into one text parameter (a term is words, never this character). */
export const TERM_SEPARATOR = '\u0001';

/** FTS5's BM25 constants (k1, b), so both backends rank alike. */
export const BM25_K1 = 1.2;
export const BM25_B = 0.75;

/**
 * The words of a text as the full-text index reads them: runs of letters and digits, everything else
 * a word break. This is how FTS5's unicode61 tokenizer and the query side (queryTerms) split text;
 * PostgreSQL's own parser would read "TS-40" as "ts" and the number −40, or "3.5" as one token.
 */
export function ftsWords(text: string): string {
  return text
    .normalize('NFKC')
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean)
    .join(' ');
}
