import { isStopword } from '../models/nlp.js';
import type { TextQuery } from '../store/interfaces.js';

/**
 * The search terms of free text, in order, each once: stopwords dropped, each a lowercase word or a
 * phrase of words ("KX-220" → "kx 220", as full-text tokenizers split it). Only letters and digits
 * survive, so no user text is ever read as query syntax by a backend.
 */
export function queryTerms(text: string, maxTerms = 32): string[] {
  const terms: string[] = [];
  const seen = new Set<string>();
  for (const raw of text.normalize('NFKC').split(/\s+/)) {
    const word = raw.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, '');
    if (!word || isStopword(word)) continue;
    const parts = word.split(/[^\p{L}\p{N}]+/u).filter(Boolean);
    if (parts.length === 0) continue;
    if (parts.length === 1 && parts[0]!.length === 1 && !/\d/.test(parts[0]!)) continue;
    const phrase = parts.join(' ').toLowerCase();
    if (seen.has(phrase)) continue;
    seen.add(phrase);
    terms.push(phrase);
    if (terms.length >= maxTerms) break;
  }
  return terms;
}

/** Free text as a text query: chunks holding any of its terms (BM25 ranking), or all of them. */
export function textQuery(text: string, match: TextQuery['match'] = 'any', maxTerms = 32): TextQuery {
  return { terms: queryTerms(text, maxTerms), match };
}
