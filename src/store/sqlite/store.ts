import type { ProgressReporter } from '../../progress.js';
import fs from 'node:fs';
import path from 'node:path';
import { type Logger, silentLogger } from '../../log.js';
import { UserError } from '../../errors.js';
import { DB_FILE, openDatabase, type DB } from './db.js';
import { HnswIndex, INDEX_FILE } from './hnsw.js';
import type { HnswParams, StoreStats } from '../types.js';
import type { Store } from '../interfaces.js';
import { SqliteContext } from './context.js';
import { SqliteDocuments } from './documents.js';
import { SqliteTextSearch } from './text-search.js';
import { SqliteVectors } from './vector-store.js';
import { SqliteCaches } from './caches.js';
import { SqliteAccess } from './access.js';
import { getMeta, setMeta } from './schema.js';

export interface StoreOptions {
  dataDir: string;
  /** Encoder id ("all-MiniLM-L6-v2/int8") and dimension the vectors come from. */
  model: string;
  dimension: number;
  hnsw: HnswParams;
  log?: Logger;
  /** Open a store embedded with another model anyway (only `ragask reindex` does, to re-embed it). */
  allowModelMismatch?: boolean;
  /**
   * False where the HNSW index is only read (engine workers beside a serving process): it is kept
   * in step with the index log in memory, and the file is left to the process that owns it.
   */
  persistIndex?: boolean;
  /** Shows a rebuild of the vector index on open (a damaged or missing index file): minutes at a million windows. */
  indexProgress?: ProgressReporter;
}

/**
 * The embedded backend: SQLite (documents, chunks, windows with their vectors, FTS5) and the HNSW
 * index over window vectors, as rooms of one concern each over one database. Every write to a
 * document happens in one SQLite transaction, so a query never sees half a document; the index
 * follows from index_log.
 */
export class SqliteStore implements Store {
  readonly documents: SqliteDocuments;
  readonly text: SqliteTextSearch;
  readonly vectors: SqliteVectors;
  readonly caches: SqliteCaches;
  readonly access: SqliteAccess;

  private constructor(
    readonly db: DB,
    readonly index: HnswIndex,
    readonly dbFile: string,
    readonly model: string,
    private readonly log: Logger,
  ) {
    const ctx = new SqliteContext(db, index);
    this.documents = new SqliteDocuments(ctx);
    this.text = new SqliteTextSearch(ctx);
    this.vectors = new SqliteVectors(ctx);
    this.caches = new SqliteCaches(ctx);
    this.access = new SqliteAccess(ctx);
  }

  static open(opts: StoreOptions): SqliteStore {
    const { db, dbFile, log, index } = SqliteStore.prepare(opts);
    try {
      return new SqliteStore(db, HnswIndex.open(db, index.file, index.opts), dbFile, opts.model, log);
    } catch (e) {
      db.close();
      throw e;
    }
  }

  /** open(), with the vector index read off the caller's thread (HnswIndex.openAsync). */
  static async openAsync(opts: StoreOptions): Promise<SqliteStore> {
    const { db, dbFile, log, index } = SqliteStore.prepare(opts);
    try {
      return new SqliteStore(db, await HnswIndex.openAsync(db, index.file, index.opts), dbFile, opts.model, log);
    } catch (e) {
      db.close();
      throw e;
    }
  }

  /** The database opened and checked against the encoder, and what opening its index needs. */
  private static prepare(opts: StoreOptions) {
    fs.mkdirSync(opts.dataDir, { recursive: true });
    const dbFile = path.join(opts.dataDir, DB_FILE);
    const db = openDatabase(dbFile);
    const log = opts.log ?? silentLogger;
    try {
      if (!opts.allowModelMismatch) SqliteStore.checkModel(db, dbFile, opts.model, opts.dimension);
    } catch (e) {
      db.close();
      throw e;
    }
    const index = {
      file: path.join(opts.dataDir, INDEX_FILE),
      opts: {
        dimension: opts.dimension,
        model: opts.model,
        params: opts.hnsw,
        log,
        persist: opts.persistIndex ?? true,
        ...(opts.indexProgress ? { progress: opts.indexProgress } : {}),
      },
    };
    return { db, dbFile, log, index };
  }

  /** Vectors of another model are garbage to this one: refuse with the re-index command instead. */
  private static checkModel(db: DB, dbFile: string, model: string, dimension: number): void {
    const pending = getMeta(db, 'reindexing');
    if (pending)
      throw new UserError(
        `${dbFile}: a re-index to ${pending} was interrupted, so its vectors are mixed: run \`ragask reindex\` (with RAGASK_MODEL/RAGASK_MODEL_VARIANT selecting ${pending}) to finish it`,
        'model_mismatch',
      );
    const stored = getMeta(db, 'embedding_model');
    // whether any window exists, not how many: a count reads every row of a million-window store
    const empty = db.prepare('SELECT 1 FROM windows LIMIT 1').get() === undefined;
    if (!stored || empty) {
      setMeta(db, 'embedding_model', model);
      setMeta(db, 'embedding_dimension', String(dimension));
      return;
    }
    if (stored !== model) {
      throw new UserError(
        `${dbFile} was embedded with ${stored}, but RAGASK_MODEL/RAGASK_MODEL_VARIANT select ${model}: run \`ragask reindex\` to re-embed every window, or set them back to ${stored}`,
        'model_mismatch',
      );
    }
  }

  async stats(): Promise<StoreStats> {
    const fileBytes = (f: string) => (fs.existsSync(f) ? fs.statSync(f).size : 0);
    return {
      ...(await this.documents.counts()),
      model: this.model,
      dimension: this.index.dimension,
      dbBytes: fileBytes(this.dbFile) + fileBytes(`${this.dbFile}-wal`),
      indexBytes: this.index.fileBytes(),
      indexSize: await this.index.size(),
    };
  }

  async close(): Promise<void> {
    try {
      await this.index.flush();
    } catch (e) {
      this.log.warn({ err: e }, 'could not save the HNSW index; it will be rebuilt on next open');
    }
    this.db.close();
  }
}
