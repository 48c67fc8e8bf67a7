/**
 * What the rest of ragask needs of storage, as interfaces: the core (engine, ingest, CLI) and the
 * Slack app depend on these, never on a database. The SQLite + hnswlib backend implements them
 * (SqliteStore in store.ts, HnswIndex in hnsw.ts, SqliteSlackState in slack-state.ts); a second backend
 * is another file implementing the same interfaces.
 */
import type { Scope } from './access.js';
import type { VectorHit } from './hnsw.js';
import type { EngineResult } from '../engine/types.js';
import type { EventClaim, FeedbackContext, FeedbackRow, StoredState, ThreadState, Turn } from './slack-state.js';
import type { ChunkInput, ChunkRow, DocumentInput, DocumentRow, MentionHit, StoreStats, WindowRow } from './store.js';

/** Approximate nearest neighbours over window vectors, kept in step with the store's index log. */
export interface VectorIndex {
  /** The k best windows for a unit vector, cosine similarity, optionally only those `filter` admits. */
  search(vector: Float32Array, k: number, filter?: (windowId: number) => boolean): VectorHit[];
  readonly size: number;
  /** The last change of the store that the index holds (for cache keys). */
  readonly appliedSeq: number;
  /** Why the index was rebuilt when it was opened, or null. */
  rebuiltBecause: string | null;
  rebuild(onProgress?: (done: number, total: number) => void): void;
  save(): void;
  flush(): void;
}

/**
 * How long an event's claim holds without renewal, in every backend. The owner renews its claims
 * every EVENT_LEASE_MS / 3 while it answers them (renewClaims); a replica that dies stops renewing,
 * and after this another takes its events over, on whatever machine it runs.
 */
export const EVENT_LEASE_MS = 60_000;

/**
 * The Slack app's state, in the store's database: the events ledger (each delivery answered once,
 * recovered when its process died), threads (follow-ups), button states (used once, with a TTL)
 * and feedback.
 */
export interface SlackStateStore {
  // events ledger
  recordDelivery(eventId: string, channel: string | null, raw: unknown): void;
  claimEvent(eventId: string, channel: string | null, payload?: unknown, staleMs?: number): EventClaim;
  ignoreEvent(eventId: string): void;
  setEventMessage(eventId: string, ts: string): void;
  finishEvent(eventId: string, status: 'answered' | 'ignored', answerTs?: string | null): void;
  releaseEvent(eventId: string): void;
  /** Renews the leases of the events this process is answering (see EVENT_LEASE_MS). */
  renewClaims(): void;
  orphanedEvents(maxAgeMs?: number, minIdleMs?: number): { eventId: string; payload: unknown }[];
  eventStatus(eventId: string): string | null;
  // threads
  getThread(channel: string, threadTs: string): ThreadState | null;
  addTurn(channel: string, threadTs: string, turn: Omit<Turn, 'at'>): ThreadState;
  // button states
  saveState(s: { channel: string; threadTs: string; messageTs: string; owner: string; result: EngineResult }): string;
  setStateMessage(key: string, messageTs: string): void;
  getState(key: string): (StoredState & { expired: boolean }) | null;
  useState(key: string, user: string): boolean;
  unuseState(key: string): void;
  // feedback
  addFeedback(f: Omit<FeedbackRow, 'id' | 'createdAt'>): boolean;
  listFeedback(limit?: number, givenIn?: FeedbackContext | null): FeedbackRow[];
  /** Drops expired threads and states, and events older than the retention; returns how many. */
  prune(eventRetentionMs?: number): number;
}

/** Documents, chunks and windows, text search, entity mentions, access scopes, the query cache and the index. */
export interface Store {
  readonly index: VectorIndex;
  /** The embedding model the windows were encoded with. */
  readonly model: string;

  // documents
  getDocumentBySource(source: string): DocumentRow | undefined;
  listDocuments(): DocumentRow[];
  sourcesUnder(prefix: string): { id: number; source: string }[];
  replaceDocument(doc: DocumentInput, chunks: ChunkInput[], defaultScope?: Scope): number;
  deleteDocument(docId: number): void;
  /** Runs `work` in one transaction (a batch of whole documents at ingest). */
  inTransaction<T>(work: () => T): T;

  // access scopes
  setScope(docIds: readonly number[], scope: Scope): number;
  accessVersion(): number;
  scopes(): Map<number, Scope | null>;

  // chunks and windows
  getChunks(ids: readonly number[]): Map<number, ChunkRow>;
  chunksOfDocument(docId: number): ChunkRow[];
  chunkIdsOfDocument(docId: number): number[];
  windowDocs(): Int32Array;
  windowChunks(windowIds: readonly number[]): Map<number, number>;
  windowsOfChunks(chunkIds: readonly number[]): WindowRow[];
  windowTexts(): { id: number; title: string; headingPath: string[]; text: string }[];
  allWindowVectors(): { id: number; vector: Float32Array }[];
  chunksWithWindowCounts(minTokens: number): { id: number; text: string; windows: number }[];

  // text search and entity mentions
  searchText(match: string, limit: number, weights?: [number, number, number], docIds?: ReadonlySet<number> | null): { chunkId: number; score: number }[];
  /** Chunks (of the given documents) matching an FTS5 query, counted up to `cap` (bounded work). */
  countTextMatches(match: string, cap: number, docIds?: ReadonlySet<number> | null): number;
  /** Chunks an entity may link to: titled or headed by it, best first, and some that mention it. */
  entityMentions(match: string, limits: { labelled: number; mentioned: number }, docIds?: ReadonlySet<number> | null): { labelled: MentionHit[]; mentioned: MentionHit[] };

  // query cache
  cachedQuery(key: string): { value: string; createdAt: number } | null;
  cacheQuery(key: string, value: string, createdAt: number): void;
  dropCachedQueries(which: { key: string } | { before: number }): number;

  // re-embedding with another model
  beginReembedding(model: string): void;
  setVectors(batch: readonly { id: number; vector: Float32Array }[]): void;
  finishReembedding(model: string, dimension: number): void;

  // the index log, state and lifecycle
  syncIndex(): number;
  counts(): { documents: number; chunks: number; windows: number };
  stats(): StoreStats;
  /** The Slack app's state in this store (`ttlMs`: how long button states and threads last). */
  slackState(ttlMs: number): SlackStateStore;
  close(): void;
}
