import { LRUCache } from 'lru-cache';
import { sentencesOf } from '../models/nlp.js';
import type { ChunkRow } from '../store/types.js';
import type { Candidate } from './retrieve.js';
import type { Citation, RetrievedRef, Snippet } from './types.js';

/** The page's link, to the chunk's own section where the page has one and the link names no place already. */
function sectionUrl(chunk: ChunkRow): string | null {
  const url = chunk.doc.url;
  return url && chunk.anchor && !url.includes('#') ? `${url}#${encodeURIComponent(chunk.anchor)}` : url;
}

export function citationOf(chunk: ChunkRow): Citation {
  return {
    document: chunk.doc.title,
    source: chunk.doc.source,
    heading_path: chunk.headingPath,
    page: chunk.page,
    url: sectionUrl(chunk),
    ...(chunk.entry ? { entry: chunk.entry } : {}),
  };
}

/** Chunks whose sentence bounds are kept: a chunk is cited again and again across hops and questions. */
const SENTENCE_BOUNDS_KEPT = 5000;
const sentenceBounds = new LRUCache<string, { start: number; end: number }[]>({ max: SENTENCE_BOUNDS_KEPT });

/** A chunk's sentences by wink-nlp (the splitter the chunker uses), kept per text. */
function sentencesIn(text: string): { start: number; end: number }[] {
  let bounds = sentenceBounds.get(text);
  if (!bounds) {
    bounds = sentencesOf(text).map(({ start, end }) => ({ start, end }));
    sentenceBounds.set(text, bounds);
  }
  return bounds;
}

/**
 * The text of a window widened to the sentences it cuts (up to `slack` characters each way), so a
 * cited snippet reads as whole sentences; an ellipsis marks where it still cuts the chunk.
 */
function widenToSentences(text: string, start: number, end: number, slack = 160): string {
  const sentences = sentencesIn(text);
  const first = sentences.find((x) => x.end > start);
  const last = sentences.findLast((x) => x.start < end);
  const a = first && first.start <= start && start - first.start <= slack ? first.start : start;
  const b = last && last.end >= end && last.end - end <= slack ? last.end : end;
  const body = text.slice(a, b).trim();
  return `${a > 0 ? '…' : ''}${body}${b < text.length ? '…' : ''}`;
}

export function snippetFrom(c: Candidate): Snippet {
  const text = c.window ? widenToSentences(c.chunk.text, c.window.charStart, c.window.charEnd) : c.chunk.text;
  return {
    chunkId: c.chunk.id,
    docId: c.chunk.docId,
    windowId: c.window?.windowId ?? null,
    text,
    score: c.score,
    citation: citationOf(c.chunk),
  };
}

export function refFrom(c: Candidate): RetrievedRef {
  return { chunkId: c.chunk.id, docId: c.chunk.docId, score: c.score, rerank: c.rerank, dense: c.dense, bm25: c.bm25 };
}
