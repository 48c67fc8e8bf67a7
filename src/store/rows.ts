/**
 * Rows as both SQL backends return them, turned into the store's types (src/store/types.ts): the same columns in
 * SQLite and PostgreSQL, so one mapper each.
 */
import { scopeFromJson } from './access.js';
import type { ChunkRow, DocumentKind, DocumentRow, Entry } from './types.js';

/** The words full-text search files under a chunk's headings: its heading path, and its entry's term where no heading names it. */
export function headingWords(c: { headingPath: readonly string[]; entry: Entry | null }): string {
  const path = c.headingPath.join(' ');
  return c.entry && !c.headingPath.includes(c.entry.term) ? `${path} ${c.entry.term}`.trim() : path;
}

export interface RawChunk {
  id: number;
  doc_id: number;
  ord: number;
  kind: string;
  heading_path: string;
  page: number | null;
  text: string;
  token_count: number;
  density: number;
  entities: string;
  entry: string | null;
  anchor: string | null;
  title: string;
  source: string;
  path: string;
  url: string | null;
  doc_kind: DocumentKind;
}

export const CHUNK_SELECT = `SELECT c.id, c.doc_id, c.ord, c.kind, c.heading_path, c.page, c.text, c.token_count, c.density, c.entities, c.entry, c.anchor,
  d.title, d.source, d.path, d.url, d.kind AS doc_kind FROM chunks c JOIN documents d ON d.id = c.doc_id`;

export function toChunk(r: RawChunk): ChunkRow {
  return {
    id: r.id,
    docId: r.doc_id,
    ord: r.ord,
    kind: r.kind,
    headingPath: JSON.parse(r.heading_path) as string[],
    page: r.page,
    text: r.text,
    tokenCount: r.token_count,
    density: r.density,
    entities: JSON.parse(r.entities) as string[],
    entry: r.entry ? (JSON.parse(r.entry) as Entry) : null,
    anchor: r.anchor,
    doc: { title: r.title, source: r.source, path: r.path, url: r.url, kind: r.doc_kind },
  };
}

export function toDocument(r: Record<string, unknown>): DocumentRow {
  return {
    id: r.id as number,
    source: r.source as string,
    path: r.path as string,
    title: r.title as string,
    kind: r.kind as DocumentKind,
    url: (r.url as string | null) ?? null,
    contentHash: r.content_hash as string,
    bytes: r.bytes as number,
    ingestedAt: r.ingested_at as string,
    scope: scopeFromJson(r.scope as string),
  };
}
