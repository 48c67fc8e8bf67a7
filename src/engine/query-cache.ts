import { createHash } from 'node:crypto';
import type { Store } from '../store/interfaces.js';
import type { Candidate } from './retrieve.js';

/** A candidate as stored: its chunk by id (the row is read again, so a deleted chunk drops out). */
type CachedCandidate = Omit<Candidate, 'chunk'> & { chunkId: number };

export interface CachedRetrieval {
  candidates: Candidate[];
  queryVector: Float32Array;
  timings: { encodeMs: number; denseMs: number; bm25Ms: number; rerankMs: number; totalMs: number };
}

/**
 * Retrieval results by (query, hop, exclusions, access scope) with a TTL, in the store so that they
 * survive restarts and are shared by processes. The key includes the store's write generation:
 * any ingest makes older entries unreachable (they expire).
 */
export class QueryCache {
  constructor(
    private readonly store: Store,
    private readonly ttlSeconds: number,
  ) {}

  /** With a TTL of 0 the cache is off: no key is made, nothing is read or written. */
  get enabled(): boolean {
    return this.ttlSeconds > 0;
  }

  async key(parts: { query: string; hop: number; exclude: number[]; k: number; scope: string }): Promise<string> {
    // the key names the store as it is now, writes by other processes included
    await this.store.caches.syncIndex();
    const gen = this.store.index.appliedSeq;
    const q = parts.query.toLowerCase().replace(/\s+/g, ' ').trim();
    return createHash('sha256')
      .update(
        JSON.stringify([
          q,
          parts.hop,
          [...parts.exclude].sort((a, b) => a - b),
          parts.k,
          parts.scope,
          gen,
          this.store.model,
        ]),
      )
      .digest('hex');
  }

  async get(key: string): Promise<CachedRetrieval | null> {
    if (this.ttlSeconds <= 0) return null;
    const row = await this.store.caches.cachedQuery(key);
    if (!row) return null;
    if (Date.now() / 1000 - row.createdAt > this.ttlSeconds) {
      await this.store.caches.dropCachedQueries({ key });
      return null;
    }
    const v = JSON.parse(row.value) as { qv: string; c: CachedCandidate[]; t: CachedRetrieval['timings'] };
    const chunks = await this.store.documents.getChunks(v.c.map((c) => c.chunkId));
    // A chunk deleted since is dropped rather than served stale.
    const candidates = v.c.flatMap((c) => {
      const chunk = chunks.get(c.chunkId);
      const { chunkId: _id, ...rest } = c;
      return chunk ? [{ ...rest, chunk }] : [];
    });
    const buf = Buffer.from(v.qv, 'base64');
    const queryVector = new Float32Array(buf.byteLength / 4);
    new Uint8Array(queryVector.buffer).set(buf);
    return { candidates, queryVector, timings: v.t };
  }

  async set(key: string, value: CachedRetrieval): Promise<void> {
    if (this.ttlSeconds <= 0) return;
    const c: CachedCandidate[] = value.candidates.map(({ chunk, ...rest }) => ({ ...rest, chunkId: chunk.id }));
    const qv = Buffer.from(
      value.queryVector.buffer,
      value.queryVector.byteOffset,
      value.queryVector.byteLength,
    ).toString('base64');
    await this.store.caches.cacheQuery(key, JSON.stringify({ qv, c, t: value.timings }), Math.floor(Date.now() / 1000));
  }

  /** Removes expired entries; returns how many. */
  async prune(): Promise<number> {
    return this.store.caches.dropCachedQueries({ before: Math.floor(Date.now() / 1000) - this.ttlSeconds });
  }
}
