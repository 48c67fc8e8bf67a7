import type { CacheStore } from '../interfaces.js';
import type { SqliteContext } from './context.js';
import { getMeta, setMeta } from './schema.js';

export class SqliteCaches implements CacheStore {
  constructor(private readonly ctx: SqliteContext) {}

  /** The query cache's entry for a key (JSON and when it was written, in seconds), if any. */
  async cachedQuery(key: string): Promise<{ value: string; createdAt: number } | null> {
    const row = this.ctx.sql('SELECT value, created_at FROM query_cache WHERE key = ?').get(key) as
      { value: string; created_at: number } | undefined;
    return row ? { value: row.value, createdAt: row.created_at } : null;
  }

  async cacheQuery(key: string, value: string, createdAt: number): Promise<void> {
    this.ctx.db
      .prepare(
        'INSERT INTO query_cache (key, value, created_at) VALUES (?, ?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value, created_at = excluded.created_at',
      )
      .run(key, value, createdAt);
  }

  /** Drops one cached query (a key), or every entry written before `before` seconds; returns how many. */
  async dropCachedQueries(which: { key: string } | { before: number }): Promise<number> {
    return 'key' in which
      ? this.ctx.sql('DELETE FROM query_cache WHERE key = ?').run(which.key).changes
      : this.ctx.sql('DELETE FROM query_cache WHERE created_at < ?').run(which.before).changes;
  }

  /** Brings the in-memory index up to date with writes made since (by this or another process). */
  async syncIndex(): Promise<number> {
    return this.ctx.index.catchUp();
  }

  async ingestCursor(name: string): Promise<string | null> {
    return getMeta(this.ctx.db, `cursor:${name}`) ?? null;
  }

  async setIngestCursor(name: string, value: string): Promise<void> {
    setMeta(this.ctx.db, `cursor:${name}`, value);
  }
}
