/**
 * What the rest of ragask needs of storage, as interfaces: the core (engine, ingest, CLI) and the
 * Slack app depend on these, never on a database. Their data types are in types.ts; each backend
 * is a folder implementing them (sqlite/: SqliteStore + HnswIndex; pg/: PgStore + PgVectorIndex),
 * and open.ts picks one. The Slack app's state is not here: src/slack/state.
 */
import type { Scope, ScopeGroup } from './access.js';
import type { DocFilter, VectorHit } from './types.js';
import type {
  ChunkInput,
  ChunkRow,
  DocumentInput,
  DocumentRow,
  EntityMentions,
  SourceActionEntry,
  SourceFlag,
  StoreStats,
  WindowRow,
} from './types.js';

/**
 * A full-text query, as data: each backend compiles it to its own syntax (FTS5 MATCH, a tsquery),
 * so no user text is ever read as query syntax. A term is a lowercase word, or a phrase of words
 * joined by single spaces ("kx 220"); `any` ranks chunks holding any term, `all` needs every one.
 */
export interface TextQuery {
  terms: readonly string[];
  match: 'any' | 'all';
}

/** A batch of whole documents written in one transaction (ingest). */
export interface DocumentWrite {
  doc: DocumentInput;
  chunks: ChunkInput[];
}

/** Approximate nearest neighbours over window vectors, kept in step with the store's index log. */
export interface VectorIndex {
  /**
   * The k best windows for a unit vector by cosine similarity; with a filter, only windows of the
   * documents it admits are candidates at all (the access filter is applied inside the search, so an
   * asker's k results are never thinned by documents they may not see).
   */
  search(vector: Float32Array, k: number, filter?: DocFilter | null): Promise<VectorHit[]>;
  /** How many windows the index holds. */
  size(): Promise<number>;
  /** The search effort (HNSW efSearch: candidates kept while walking the graph): recall against speed, swept by `ragask bench`. */
  readonly efSearch: number;
  setEfSearch(efSearch: number): void;
  /** The last change of the store that the index holds (for cache keys); moves on with Store.syncIndex. */
  readonly appliedSeq: number;
  /** Why the index was rebuilt when it was opened, or null. */
  rebuiltBecause: string | null;
  rebuild(onProgress?: (done: number, total: number) => void): Promise<void>;
  /** Writes the index where it keeps it (a file), if it keeps one outside the database. */
  save(): Promise<void>;
  /** Saves if anything changed since the last save. */
  flush(): Promise<void>;
}

/** Documents and their chunks: written whole, read by id, by document or by source. */
export interface DocumentStore {
  getDocumentBySource(source: string): Promise<DocumentRow | undefined>;
  listDocuments(): Promise<DocumentRow[]>;
  sourcesUnder(prefix: string): Promise<{ id: number; source: string }[]>;
  /** Writes whole documents in one transaction (each replacing any stored with its source); returns their ids. */
  replaceDocuments(batch: readonly DocumentWrite[], defaultScope?: Scope): Promise<number[]>;
  deleteDocument(docId: number): Promise<void>;
  getChunks(ids: readonly number[]): Promise<Map<number, ChunkRow>>;
  chunksOfDocument(docId: number): Promise<ChunkRow[]>;
  chunkIdsOfDocument(docId: number): Promise<number[]>;
  counts(): Promise<{ documents: number; chunks: number; windows: number }>;
}

/** Full-text search over chunks (BM25) and the chunks an entity may link to. */
export interface TextSearch {
  /** BM25 over chunks (title, headings, body, weighted by `weights`), positive scores, best first. */
  searchText(
    query: TextQuery,
    limit: number,
    weights?: [number, number, number],
    filter?: DocFilter | null,
  ): Promise<{ chunkId: number; score: number }[]>;
  /**
   * Chunks (of the given documents) matching each text query, counted up to `cap` (bounded work),
   * in the order asked; several queries are answered together (one round trip on PostgreSQL).
   */
  countTextMatches(queries: readonly TextQuery[], cap: number, filter?: DocFilter | null): Promise<number[]>;
  /**
   * Chunks each entity may link to (one query per entity, answered in one round trip): titled or
   * headed by it, best first, and some that merely mention it.
   */
  entityMentions(
    queries: readonly TextQuery[],
    limits: { labelled: number; mentioned: number },
    filter?: DocFilter | null,
  ): Promise<EntityMentions[]>;
}

/** The windows' vectors: read by window or chunk, re-embedded with another model, loaded in bulk. */
export interface VectorStore {
  windowChunks(windowIds: readonly number[]): Promise<Map<number, number>>;
  windowsOfChunks(chunkIds: readonly number[]): Promise<WindowRow[]>;
  /** Every window's text with its title and headings, in id order; with `last`, only the newest that many. */
  windowTexts(last?: number): Promise<{ id: number; title: string; headingPath: string[]; text: string }[]>;
  allWindowVectors(): Promise<{ id: number; vector: Float32Array }[]>;
  chunksWithWindowCounts(minTokens: number): Promise<{ id: number; text: string; windows: number }[]>;
  beginReembedding(model: string): Promise<void>;
  setVectors(batch: readonly { id: number; vector: Float32Array }[]): Promise<void>;
  finishReembedding(model: string, dimension: number): Promise<void>;
  /**
   * Starts a load into an empty store. A backend whose vector index is cheaper to build once over all
   * rows than to update row by row may set it aside here (true when it did; the store answers
   * exactly, and slower, until `finishBulkLoad`). False, and nothing changes, for a store that holds
   * windows or a backend that gains nothing.
   */
  beginBulkLoad(): Promise<boolean>;
  /** Builds what `beginBulkLoad` set aside over every row stored; safe to call when nothing was. */
  finishBulkLoad(): Promise<void>;
}

/** The query cache, the index log and where incremental sources stopped reading. */
export interface CacheStore {
  cachedQuery(key: string): Promise<{ value: string; createdAt: number } | null>;
  cacheQuery(key: string, value: string, createdAt: number): Promise<void>;
  dropCachedQueries(which: { key: string } | { before: number }): Promise<number>;
  /** Brings the vector index and the caches keyed by its position up to the store's latest writes (by any process); returns how many changes it applied. */
  syncIndex(): Promise<number>;
  /** Where an incremental source stopped reading (a Slack channel's newest message ts), by name. */
  ingestCursor(name: string): Promise<string | null>;
  setIngestCursor(name: string, value: string): Promise<void>;
}

/** Who may see what: documents' scopes, and admins' actions on sources (hide, demote, restore). */
export interface AccessStore {
  setScope(docIds: readonly number[], scope: Scope): Promise<number>;
  /** Changes whenever a document is added, removed or re-scoped, or a source flagged: the key of access caches. */
  accessVersion(): Promise<number>;
  scopes(): Promise<Map<number, Scope | null>>;
  /** The documents grouped by their scope: what an asker's access is resolved from. */
  scopeGroups(): Promise<ScopeGroup[]>;
  /** Logs an action with who did it; each changes the access version. */
  flagSource(entry: SourceActionEntry): Promise<void>;
  sourceFlags(): Promise<SourceFlag[]>;
  /** The documents whose source is hidden or demoted now. */
  flaggedDocuments(): Promise<{ hidden: Set<number>; demoted: Set<number> }>;
  /** The latest actions, newest first. */
  sourceActions(limit: number): Promise<SourceActionEntry[]>;
}

/**
 * A store: one backend's rooms, each of one concern, over one database, and the vector index
 * beside them (as LlamaIndexTS's storage context holds a document store, an index store and a
 * vector store).
 */
export interface Store {
  readonly documents: DocumentStore;
  readonly text: TextSearch;
  readonly vectors: VectorStore;
  readonly caches: CacheStore;
  readonly access: AccessStore;
  readonly index: VectorIndex;
  /** The embedding model the windows were encoded with. */
  readonly model: string;
  stats(): Promise<StoreStats>;
  close(): Promise<void>;
}
