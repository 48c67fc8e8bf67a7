import pgvector from 'pgvector';
import { filterIds, type DocFilter, type VectorHit } from '../types.js';
import type { VectorIndex } from '../interfaces.js';
import type { PgClient, PgPool } from './db.js';

/**
 * The pgvector backend of the VectorIndex: window vectors in `windows.embedding`, an HNSW index
 * (cosine) that PostgreSQL keeps in step with every committed write, so every replica searches the
 * same index and there is nothing to replay, save or rebuild on open.
 *
 * The access filter is part of the k-NN query itself (`doc_id = ANY(…)`). pgvector 0.8 and later
 * walk the graph on until k rows pass the filter (iterative index scans, used where the server has
 * them); before 0.8 the HNSW candidates are filtered after the walk, so a selective filter can leave
 * fewer than k results; then the same query runs exactly over the allowed documents' windows
 * (through their `doc_id` index), which is cheap precisely when the filter is selective. An asker's k results are
 * never thinned by documents they may not see.
 */
/** The first pgvector with iterative index scans (`hnsw.iterative_scan`): a filtered k-NN then walks on until it has k rows. */
const ITERATIVE_SCAN_SINCE = [0, 8] as const;

/** Whether a pgvector version ("0.6.2", "0.8.0") has iterative index scans. */
export function hasIterativeScan(version: string | null): boolean {
  if (!version) return false;
  const [major = 0, minor = 0] = version.split('.').map((x) => Number.parseInt(x, 10));
  return major > ITERATIVE_SCAN_SINCE[0] || (major === ITERATIVE_SCAN_SINCE[0] && minor >= ITERATIVE_SCAN_SINCE[1]);
}

export class PgVectorIndex implements VectorIndex {
  /** The store's change counter as of the last Store.syncIndex (cache keys). */
  appliedSeq = 0;
  readonly rebuiltBecause: string | null = null;

  /** The ef_search each pooled connection has set (a session setting, kept between searches). */
  private readonly efOfClient = new WeakMap<PgClient, number>();

  constructor(
    private readonly pool: PgPool,
    readonly dimension: number,
    private ef: number,
    /** The server's pgvector has iterative index scans: a filtered search asks for them (the exact fallback stays for what they still miss). */
    readonly iterativeScan = false,
  ) {}

  get efSearch(): number {
    return this.ef;
  }

  setEfSearch(efSearch: number): void {
    this.ef = efSearch;
  }

  async search(vector: Float32Array, k: number, docFilter: DocFilter | null = null): Promise<VectorHit[]> {
    if (k <= 0) return [];
    const v = pgvector.toSql(Array.from(vector)) as string;
    const listed = docFilter ? filterIds(docFilter) : null;
    if (listed?.only && listed.ids.size === 0) return [];
    const docs = listed ? [...listed.ids] : null;
    const filter = listed
      ? listed.only
        ? 'WHERE doc_id = ANY($3::bigint[])'
        : 'WHERE doc_id <> ALL($3::bigint[])'
      : '';
    const params: unknown[] = docs ? [v, k, docs] : [v, k];
    // the candidate list must hold at least k (pgvector returns at most ef_search rows)
    const ef = Math.min(1000, Math.max(this.ef, k));
    const client = await this.pool.connect();
    try {
      // ef_search stays set on the connection, so a search is one round trip, not a transaction of four
      if (this.efOfClient.get(client) !== ef) {
        await client.query("SELECT set_config('hnsw.ef_search', $1, false)", [String(ef)]);
        this.efOfClient.set(client, ef);
      }
      const hits =
        docs && this.iterativeScan
          ? await this.iterativeSearch(client, filter, params)
          : (
              await client.query<{ id: number; d: number }>(
                `SELECT id, embedding <=> $1::vector AS d FROM windows ${filter} ORDER BY embedding <=> $1::vector LIMIT $2`,
                params,
              )
            ).rows;
      if (!docs || hits.length >= k) return hits.map((h) => ({ windowId: h.id, score: 1 - h.d }));
      // filtered below k: exact over the allowed windows (the ORDER BY expression bypasses the HNSW index)
      const exact = await client.query<{ id: number; d: number }>(
        `SELECT id, embedding <=> $1::vector AS d FROM windows ${filter} ORDER BY (embedding <=> $1::vector) + 0 LIMIT $2`,
        params,
      );
      return exact.rows.map((h) => ({ windowId: h.id, score: 1 - h.d }));
    } finally {
      client.release();
    }
  }

  /** A filtered search that walks the graph on until k rows pass (set for this query only). */
  private async iterativeSearch(
    client: PgClient,
    filter: string,
    params: unknown[],
  ): Promise<{ id: number; d: number }[]> {
    await client.query('BEGIN');
    try {
      await client.query("SELECT set_config('hnsw.iterative_scan', 'relaxed_order', true)");
      const r = await client.query<{ id: number; d: number }>(
        `SELECT id, embedding <=> $1::vector AS d FROM windows ${filter} ORDER BY embedding <=> $1::vector LIMIT $2`,
        params,
      );
      await client.query('COMMIT');
      return r.rows;
    } catch (e) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw e;
    }
  }

  async size(): Promise<number> {
    return Number((await this.pool.query<{ n: number }>('SELECT count(*)::bigint AS n FROM windows')).rows[0]!.n);
  }

  /** Rebuilds the HNSW index from the stored vectors (REINDEX; PostgreSQL keeps it current otherwise). */
  async rebuild(): Promise<void> {
    await this.pool.query('REINDEX INDEX windows_embedding');
  }

  /** Nothing to write: the index lives in the database. */
  async save(): Promise<void> {}

  async flush(): Promise<void> {}
}
