/**
 * The data the storage contract speaks in: documents, chunks and windows as written and as read,
 * search hits and statistics. Backend-neutral: every backend (src/store/sqlite, src/store/pg)
 * reads and writes these, and nothing here knows a database.
 */
import type { Scope } from './access.js';

/** What a document was read from: a file of a kind, a record of a .jsonl corpus, or a Slack thread. */
export type DocumentKind = 'markdown' | 'asciidoc' | 'text' | 'html' | 'pdf' | 'docx' | 'csv' | 'jsonl' | 'slack';

export interface DocumentInput {
  /** Unique key: the file path, or `path#id` for a record of a .jsonl corpus. */
  source: string;
  path: string;
  title: string;
  kind: DocumentKind;
  url: string | null;
  contentHash: string;
  bytes: number;
  /** Who may see it; when absent a new document gets the default and a changed one keeps its scope. */
  scope?: Scope;
}

/**
 * What a manual or handbook is made of: a term (a parameter, option, command, function, field or
 * named row) with its description and the values it states. A chunk that belongs to one carries it,
 * so retrieval, reading, bridging and display can name what a line belongs to.
 */
export type EntryKind = 'term' | 'option' | 'command' | 'row' | 'field';

export interface Entry {
  /** The described thing's name as the document writes it ("cache_size", "--dry-run", "htpasswd"). */
  term: string;
  kind: EntryKind;
}

export interface WindowInput {
  ord: number;
  charStart: number;
  charEnd: number;
  tokenCount: number;
  vector: Float32Array;
}

export interface ChunkInput {
  ord: number;
  kind: string;
  headingPath: string[];
  page: number | null;
  text: string;
  tokenCount: number;
  density: number;
  entities: string[];
  /** The entry this chunk belongs to (its description, a value it states), or null. */
  entry: Entry | null;
  /** The id of the chunk's section in its page as hosted (`url#anchor`), where the page gives one. */
  anchor?: string | null;
  windows: WindowInput[];
}

export interface DocumentRow {
  id: number;
  source: string;
  path: string;
  title: string;
  kind: DocumentKind;
  url: string | null;
  contentHash: string;
  bytes: number;
  ingestedAt: string;
  /** null: a stored scope that cannot be read (shown nowhere but locally). */
  scope: Scope | null;
}

export interface ChunkRow {
  id: number;
  docId: number;
  ord: number;
  kind: string;
  headingPath: string[];
  page: number | null;
  text: string;
  tokenCount: number;
  density: number;
  entities: string[];
  entry: Entry | null;
  /** The id of the chunk's section in its page as hosted, or null. */
  anchor?: string | null;
  doc: { title: string; source: string; path: string; url: string | null; kind: DocumentKind };
}

export interface WindowRow {
  id: number;
  chunkId: number;
  ord: number;
  charStart: number;
  charEnd: number;
  tokenCount: number;
  vector: Float32Array;
}

/** A chunk an entity may link to, with its document's title and its heading path. */
export interface MentionHit {
  chunkId: number;
  docId: number;
  title: string;
  headingPath: string[];
}

/** Where an entity may link: chunks titled or headed by it, best first, and some that mention it. */
export interface EntityMentions {
  labelled: MentionHit[];
  mentioned: MentionHit[];
}

export interface HnswParams {
  m: number;
  efConstruction: number;
  efSearch: number;
}

export interface VectorHit {
  windowId: number;
  /** Cosine similarity (vectors are L2-normalised; hnswlib's "ip" distance is 1 − dot). */
  score: number;
}

/** What an admin did to a source: hide it from every answer, or lower its rank. */
export type SourceAction = 'hide' | 'demote';

/** A source's current flag (a re-ingested source keeps it: flags are kept by source, not document id). */
export interface SourceFlag {
  source: string;
  action: SourceAction;
  by: string;
  /** Milliseconds since the epoch. */
  at: number;
}

/** One admin action as logged, restores included. */
export interface SourceActionEntry {
  source: string;
  action: SourceAction | 'restore';
  by: string;
  at: number;
}

export interface StoreStats {
  documents: number;
  chunks: number;
  windows: number;
  model: string;
  dimension: number;
  dbBytes: number;
  indexBytes: number;
  indexSize: number;
}

/** One line of `ragask doctor`: what was checked, whether it is fine, and what to do if not. */
export interface HealthCheck {
  name: string;
  ok: boolean;
  detail: string;
  fix?: string;
}

/**
 * Which documents a search may return: only these, or every document but these. An asker's access
 * is given as the shorter list: a channel that may not see a handful of private documents filters
 * out those few instead of listing the 232k it may see (at a million windows that list cost each
 * SQL search about 0.2 s; BENCHMARKS.md, "Corpus scale").
 */
export type DocFilter = { only: ReadonlySet<number> } | { except: ReadonlySet<number> };

/** Whether a filter lets a document through (no filter: every one). */
export function admits(filter: DocFilter | null | undefined, docId: number): boolean {
  return !filter || ('only' in filter ? filter.only.has(docId) : !filter.except.has(docId));
}

/** The ids a filter lists, and whether they are the only ones let through or the ones kept out. */
export function filterIds(filter: DocFilter): { ids: ReadonlySet<number>; only: boolean } {
  return 'only' in filter ? { ids: filter.only, only: true } : { ids: filter.except, only: false };
}
