import type { ChunkRow } from '../store/types.js';
import type { Candidate } from './retrieve.js';
import type { Citation, RetrievedRef, Snippet } from './types.js';

export function citationOf(chunk: ChunkRow): Citation {
  return {
    document: chunk.doc.title,
    source: chunk.doc.source,
    heading_path: chunk.headingPath,
    page: chunk.page,
    url: chunk.doc.url,
    ...(chunk.entry ? { entry: chunk.entry } : {}),
  };
}

/**
 * The text of a window widened to the sentences it cuts (up to `slack` characters each way), so a
 * cited snippet reads as whole sentences; an ellipsis marks where it still cuts the chunk.
 */
function widenToSentences(text: string, start: number, end: number, slack = 160): string {
  let a = start;
  const floor = Math.max(0, start - slack);
  while (a > floor && !/[.!?;]\s$/.test(text.slice(Math.max(0, a - 2), a))) a--;
  if (a === floor && floor > 0) a = start;
  let b = end;
  const ceil = Math.min(text.length, end + slack);
  // a sentence ends at . ! ? ; followed by a space or the end ("2.4 GHz" does not end one)
  const endsSentence = (i: number) => /[.!?;]/.test(text[i - 1] ?? '') && (i >= text.length || /\s/.test(text[i]!));
  while (b < ceil && !endsSentence(b)) b++;
  if (b === ceil && ceil < text.length) b = end;
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
