import type { CacheStore } from '../interfaces.js';
import type { PgContext } from './context.js';

export class PgCaches implements CacheStore {
  constructor(private readonly ctx: PgContext) {}

  async cachedQuery(key: string): Promise<{ value: string; createdAt: number } | null> {
    const r = (
      await this.ctx.pool.query<{ value: string; created_at: number }>(
        'SELECT value, created_at FROM query_cache WHERE key = $1',
        [key],
      )
    ).rows[0];
    return r ? { value: r.value, createdAt: r.created_at } : null;
  }

  async cacheQuery(key: string, value: string, createdAt: number): Promise<void> {
    await this.ctx.pool.query(
      'INSERT INTO query_cache (key, value, created_at) VALUES ($1, $2, $3) ON CONFLICT (key) DO UPDATE SET value = excluded.value, created_at = excluded.created_at',
      [key, value, createdAt],
    );
  }

  async dropCachedQueries(which: { key: string } | { before: number }): Promise<number> {
    const r =
      'key' in which
        ? await this.ctx.pool.query('DELETE FROM query_cache WHERE key = $1', [which.key])
        : await this.ctx.pool.query('DELETE FROM query_cache WHERE created_at < $1', [which.before]);
    return r.rowCount ?? 0;
  }

  /** Reads the store's change counter: every replica's caches key on it, so a write anywhere is seen at the next query. */
  async syncIndex(): Promise<number> {
    const generation = Number((await this.ctx.meta('generation')) ?? '0');
    const moved = generation - this.ctx.index.appliedSeq;
    if (moved !== 0) this.ctx.textCounts.clear();
    this.ctx.index.appliedSeq = generation;
    return Math.max(0, moved);
  }

  async ingestCursor(name: string): Promise<string | null> {
    return (await this.ctx.meta(`cursor:${name}`)) ?? null;
  }

  async setIngestCursor(name: string, value: string): Promise<void> {
    await this.ctx.setMeta(`cursor:${name}`, value);
  }
}
