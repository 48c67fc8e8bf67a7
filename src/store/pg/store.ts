import { UserError } from '../../errors.js';
import type { Logger } from '../../log.js';
import { silentLogger } from '../../log.js';
import type { HnswParams, StoreStats } from '../types.js';
import type { Store } from '../interfaces.js';
import { redactUrl } from '../url.js';
import { migrate, openPool, type PgPool } from './db.js';
import { hasIterativeScan, PgVectorIndex } from './vectors.js';
import { PgContext } from './context.js';
import { ensureVectorIndex, storeMigrations } from './schema.js';
import { PgDocuments } from './documents.js';
import { PgTextSearch } from './text-search.js';
import { PgVectors } from './vector-store.js';
import { PgCaches } from './caches.js';
import { PgAccess } from './access.js';

export interface PgStoreOptions {
  url: string;
  model: string;
  dimension: number;
  hnsw: HnswParams;
  log?: Logger;
  allowModelMismatch?: boolean;
  /** Connections in this process's pool. */
  poolSize?: number;
  /** A schema of its own in the database (eval datasets, benchmarks, tests); default: the URL's search_path. */
  schema?: string;
}

/**
 * The PostgreSQL backend of the Store: documents, chunks and windows in tables, vectors in pgvector
 * (PgVectorIndex), full-text search with BM25 computed from an inverted term table (postings), as
 * rooms of one concern each over one pool. Every replica reads and writes the same rows; a write by
 * any of them is seen by the others at their next query.
 */
export class PgStore implements Store {
  readonly index: PgVectorIndex;
  readonly documents: PgDocuments;
  readonly text: PgTextSearch;
  readonly vectors: PgVectors;
  readonly caches: PgCaches;
  readonly access: PgAccess;
  private readonly ctx: PgContext;

  private constructor(
    readonly pool: PgPool,
    readonly model: string,
    dimension: number,
    hnsw: HnswParams,
    private readonly url: string,
    private readonly log: Logger,
    iterativeScan: boolean,
  ) {
    this.index = new PgVectorIndex(pool, dimension, hnsw.efSearch, iterativeScan);
    this.ctx = new PgContext(pool, this.index, hnsw);
    this.documents = new PgDocuments(this.ctx);
    this.text = new PgTextSearch(this.ctx);
    this.vectors = new PgVectors(this.ctx);
    this.caches = new PgCaches(this.ctx);
    this.access = new PgAccess(this.ctx);
  }

  static async open(opts: PgStoreOptions): Promise<PgStore> {
    const pool = await openPool(opts.url, {
      ...(opts.poolSize ? { max: opts.poolSize } : {}),
      ...(opts.schema ? { schema: opts.schema } : {}),
    });
    try {
      await migrate(pool, 'store', storeMigrations(opts.dimension, opts.hnsw));
      await ensureVectorIndex(pool, opts.hnsw);
      const pgvector =
        (await pool.query<{ v: string | null }>("SELECT extversion AS v FROM pg_extension WHERE extname = 'vector'"))
          .rows[0]?.v ?? null;
      const store = new PgStore(
        pool,
        opts.model,
        opts.dimension,
        opts.hnsw,
        opts.url,
        opts.log ?? silentLogger,
        hasIterativeScan(pgvector),
      );
      if (!opts.allowModelMismatch) await store.checkModel(opts.model, opts.dimension);
      await store.caches.syncIndex();
      return store;
    } catch (e) {
      await pool.end().catch(() => undefined);
      throw e;
    }
  }

  /** Vectors of another model are garbage to this one: refuse with the re-index command instead. */
  private async checkModel(model: string, dimension: number): Promise<void> {
    const where = redactUrl(this.url);
    const pending = await this.ctx.meta('reindexing');
    if (pending)
      throw new UserError(
        `${where}: a re-index to ${pending} was interrupted, so its vectors are mixed: run \`ragask reindex\` (with RAGASK_MODEL/RAGASK_MODEL_VARIANT selecting ${pending}) to finish it`,
        'model_mismatch',
      );
    const stored = await this.ctx.meta('embedding_model');
    const windows = (await this.pool.query('SELECT 1 FROM windows LIMIT 1')).rowCount ?? 0;
    if (!stored || windows === 0) {
      const storedDimension = Number((await this.ctx.meta('embedding_dimension')) ?? dimension);
      if (storedDimension !== dimension)
        throw new UserError(
          `${where} holds ${storedDimension}-dimensional vectors, but the model gives ${dimension}: use a new database for this model`,
          'model_mismatch',
        );
      await this.ctx.setMeta('embedding_model', model);
      await this.ctx.setMeta('embedding_dimension', String(dimension));
      return;
    }
    if (stored !== model) {
      throw new UserError(
        `${where} was embedded with ${stored}, but RAGASK_MODEL/RAGASK_MODEL_VARIANT select ${model}: run \`ragask reindex\` to re-embed every window, or set them back to ${stored}`,
        'model_mismatch',
      );
    }
  }

  async stats(): Promise<StoreStats> {
    const sizes = (
      await this.pool.query<{ db: number; idx: number }>(
        `SELECT (pg_total_relation_size('documents') + pg_total_relation_size('chunks') + pg_total_relation_size('windows') + pg_total_relation_size('query_cache'))::bigint AS db,
                coalesce(pg_relation_size(to_regclass('windows_embedding')), 0)::bigint AS idx`,
      )
    ).rows[0]!;
    const counts = await this.documents.counts();
    return {
      ...counts,
      model: this.model,
      dimension: this.index.dimension,
      dbBytes: sizes.db,
      indexBytes: sizes.idx,
      indexSize: counts.windows,
    };
  }

  async close(): Promise<void> {
    try {
      await this.pool.end();
    } catch (e) {
      this.log.warn({ err: e }, 'closing the PostgreSQL pool failed');
    }
  }
}
