import { isStopword } from '../models/nlp.js';

/**
 * Turns free text into a safe FTS5 query: every term is a quoted string (so no user text is ever
 * read as FTS5 syntax), stopwords dropped, terms OR-ed for BM25 ranking.
 */
export function ftsQuery(text: string, maxTerms = 32): string {
  return ftsTerms(text, maxTerms).join(' OR ');
}

/** The quoted FTS5 terms of free text, in order, each once (see ftsQuery). */
export function ftsTerms(text: string, maxTerms = 32): string[] {
  const terms: string[] = [];
  const seen = new Set<string>();
  for (const raw of text.normalize('NFKC').split(/\s+/)) {
    // keep letters, digits and inner joiners; FTS5's unicode61 tokenizer splits "KX-220" into a phrase
    const word = raw.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, '');
    if (!word || isStopword(word)) continue;
    const parts = word.split(/[^\p{L}\p{N}]+/u).filter(Boolean);
    if (parts.length === 0) continue;
    if (parts.length === 1 && parts[0]!.length === 1 && !/\d/.test(parts[0]!)) continue;
    const phrase = parts.join(' ').toLowerCase();
    if (seen.has(phrase)) continue;
    seen.add(phrase);
    terms.push(`"${phrase.replace(/"/g, '""')}"`);
    if (terms.length >= maxTerms) break;
  }
  return terms;
}
