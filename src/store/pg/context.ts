import { LRUCache } from 'lru-cache';
import type { HnswParams } from '../types.js';
import type { PgClient, PgPool } from './db.js';
import type { PgVectorIndex } from './vectors.js';

/** How many text-match counts are kept until the store changes. */
const TEXT_COUNTS_KEPT = 50_000;

/**
 * What the PostgreSQL backend's rooms share: the pool, the vector index, the HNSW parameters, the
 * store's meta rows and the text counts that every change invalidates.
 */
export class PgContext {
  /** Chunk counts per term, until the store changes (see PgCaches.syncIndex). */
  readonly textCounts = new LRUCache<string, { n: number; exact: boolean }>({ max: TEXT_COUNTS_KEPT });

  constructor(
    readonly pool: PgPool,
    readonly index: PgVectorIndex,
    readonly hnsw: HnswParams,
  ) {}

  async meta(key: string, client: PgPool | PgClient = this.pool): Promise<string | undefined> {
    return (await client.query<{ value: string }>('SELECT value FROM ragask_meta WHERE key = $1', [key])).rows[0]
      ?.value;
  }

  async setMeta(key: string, value: string, client: PgPool | PgClient = this.pool): Promise<void> {
    await client.query(
      'INSERT INTO ragask_meta (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = excluded.value',
      [key, value],
    );
  }

  /** Counts a committed change: the generation keys every cache of every replica. */
  async bump(client: PgClient, access: boolean): Promise<void> {
    await client.query(
      `UPDATE ragask_meta SET value = (value::bigint + 1)::text WHERE key IN ('generation'${access ? ", 'access_version'" : ''})`,
    );
  }
}
