import path from 'node:path';
import type { Candidate } from '../engine/retrieve.js';
import type { ChunkRow } from '../store/store.js';

export interface Citation {
  document: string;
  source: string;
  heading_path: string[];
  page: number | null;
  url: string | null;
}

export function citationOf(chunk: ChunkRow): Citation {
  return { document: chunk.doc.title, source: chunk.doc.source, heading_path: chunk.headingPath, page: chunk.page, url: chunk.doc.url };
}

/** "KX-220 Datasheet › Calibration (p. 2)". */
export function citationLabel(c: Citation): string {
  const parts = [c.document, ...c.heading_path].filter(Boolean).join(' › ');
  return c.page ? `${parts} (p. ${c.page})` : parts;
}

/** A source path as a person would type it: relative to the working folder when inside it. */
export function displaySource(source: string, cwd = process.cwd()): string {
  const [file, record] = source.split('#', 2) as [string, string | undefined];
  const rel = path.relative(cwd, file);
  const shown = rel && !rel.startsWith('..') && !path.isAbsolute(rel) ? rel : file;
  return record === undefined ? shown : `${shown}#${record}`;
}

/** The best window of a candidate, with an ellipsis where it cuts its chunk. */
export function snippetOf(c: Pick<Candidate, 'chunk' | 'window'>): string {
  const text = c.chunk.text;
  if (!c.window) return text;
  const { charStart, charEnd } = c.window;
  return `${charStart > 0 ? '…' : ''}${text.slice(charStart, charEnd)}${charEnd < text.length ? '…' : ''}`;
}
