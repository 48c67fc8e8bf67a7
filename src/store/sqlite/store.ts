import fs from 'node:fs';
import type Database from 'better-sqlite3';
import { LRUCache } from 'lru-cache';
import path from 'node:path';
import type { Logger } from '../../log.js';
import { silentLogger } from '../../log.js';
import { UserError } from '../../errors.js';
import { DB_FILE, getMeta, openDatabase, setMeta, type DB } from './db.js';
import { PUBLIC_SCOPE, scopeFromJson, scopeToJson, type Scope } from '../access.js';
import { HnswIndex, INDEX_FILE } from './hnsw.js';
import type {
  ChunkInput,
  ChunkRow,
  DocumentInput,
  DocumentRow,
  HnswParams,
  EntityMentions,
  MentionHit,
  SourceAction,
  SourceActionEntry,
  SourceFlag,
  StoreStats,
  WindowRow,
} from '../types.js';
import type { DocumentWrite, Store, TextQuery } from '../interfaces.js';
import { blobToVector, vectorToBlob } from './vectors.js';
import { CHUNK_SELECT, headingWords, toChunk, toDocument, type RawChunk } from '../rows.js';

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
}

/** A text query as an FTS5 MATCH expression: every term a quoted string, so nothing is read as syntax. */
function fts5Match(query: TextQuery): string {
  return query.terms.map((t) => `"${t.replace(/"/g, '""')}"`).join(query.match === 'any' ? ' OR ' : ' ');
}

/**
 * A set of document ids (an asker's allowed documents) as the JSON list that `json_each(?)` reads
 * in SQL; made once per set (resolved sets are never changed), since the same resolution filters
 * every search of a question.
 */
const docIdsJsonCache = new WeakMap<ReadonlySet<number>, string>();
function docIdsJson(ids: ReadonlySet<number>): string {
  let json = docIdsJsonCache.get(ids);
  if (json === undefined) {
    json = JSON.stringify([...ids]);
    docIdsJsonCache.set(ids, json);
  }
  return json;
}

/**
 * The two stores behind retrieval: SQLite (documents, chunks, windows with their vectors, FTS5) and
 * the HNSW index over window vectors. Every write to a document happens in one SQLite transaction,
 * so a query never sees half a document; the index follows from index_log.
 */
/**
 * A read-only health check of a store's database (for `ragask doctor`, before anything opens it
 * for writing): SQLite's integrity check and schema version, rows without their parent, documents without chunks, chunks missing from the
 * full-text index, and the counts.
 */
export function storeHealth(db: DB): {
  schemaVersion: number;
  integrity: string[];
  orphanChunks: number;
  orphanWindows: number;
  emptyDocs: number;
  ftsGap: number;
  documents: number;
  windows: number;
} {
  const count = (sql: string) => (db.prepare(sql).get() as { n: number }).n;
  return {
    schemaVersion: db.pragma('user_version', { simple: true }) as number,
    // SQLite's own check of the file: ["ok"], or what it found wrong
    integrity: (db.pragma('quick_check') as { quick_check: string }[]).map((r) => r.quick_check),
    orphanChunks: count(
      'SELECT count(*) AS n FROM chunks c LEFT JOIN documents d ON d.id = c.doc_id WHERE d.id IS NULL',
    ),
    orphanWindows: count(
      'SELECT count(*) AS n FROM windows w LEFT JOIN chunks c ON c.id = w.chunk_id WHERE c.id IS NULL',
    ),
    emptyDocs: count(
      'SELECT count(*) AS n FROM documents d WHERE NOT EXISTS (SELECT 1 FROM chunks c WHERE c.doc_id = d.id)',
    ),
    ftsGap: count(
      'SELECT count(*) AS n FROM chunks c WHERE NOT EXISTS (SELECT 1 FROM chunks_fts f WHERE f.rowid = c.id)',
    ),
    documents: count('SELECT count(*) AS n FROM documents'),
    windows: count('SELECT count(*) AS n FROM windows'),
  };
}

/** The SQLite (+ FTS5) backend of the Store, with its HNSW index. */
export class SqliteStore implements Store {
  readonly db: DB;
  readonly index: HnswIndex;
  readonly dbFile: string;
  readonly model: string;
  private readonly log: Logger;
  /** countTextMatches' unfiltered counts, until the store changes (see refreshTextCounts). */
  private readonly textCounts = new LRUCache<string, number>({ max: 50_000 });
  private textCountsSeq = -1;

  private readonly statements = new Map<string, Database.Statement>();

  /** A statement prepared once per SQL text: preparing costs more than most of these queries. */
  private sql(text: string): Database.Statement {
    let st = this.statements.get(text);
    if (!st) {
      st = this.db.prepare(text);
      this.statements.set(text, st);
    }
    return st;
  }

  private constructor(db: DB, index: HnswIndex, dbFile: string, model: string, log: Logger) {
    this.db = db;
    this.index = index;
    this.dbFile = dbFile;
    this.model = model;
    this.log = log;
  }

  static open(opts: StoreOptions): SqliteStore {
    fs.mkdirSync(opts.dataDir, { recursive: true });
    const dbFile = path.join(opts.dataDir, DB_FILE);
    const db = openDatabase(dbFile);
    const log = opts.log ?? silentLogger;
    try {
      if (!opts.allowModelMismatch) SqliteStore.checkModel(db, dbFile, opts.model, opts.dimension);
      const index = HnswIndex.open(db, path.join(opts.dataDir, INDEX_FILE), {
        dimension: opts.dimension,
        model: opts.model,
        params: opts.hnsw,
        log,
        persist: opts.persistIndex ?? true,
      });
      return new SqliteStore(db, index, dbFile, opts.model, log);
    } catch (e) {
      db.close();
      throw e;
    }
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
    const windows = (db.prepare('SELECT count(*) AS n FROM windows').get() as { n: number }).n;
    if (!stored || windows === 0) {
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

  async getDocumentBySource(source: string): Promise<DocumentRow | undefined> {
    const r = this.sql('SELECT * FROM documents WHERE source = ?').get(source) as Record<string, unknown> | undefined;
    return r ? toDocument(r) : undefined;
  }

  async listDocuments(): Promise<DocumentRow[]> {
    return (this.sql('SELECT * FROM documents ORDER BY source').all() as Record<string, unknown>[]).map((r) =>
      toDocument(r),
    );
  }

  /** Sources whose key starts with `prefix` (the records of one .jsonl file, or the files under a folder). */
  async sourcesUnder(prefix: string): Promise<{ id: number; source: string }[]> {
    return this.sql('SELECT id, source FROM documents WHERE substr(source, 1, length(?)) = ?').all(prefix, prefix) as {
      id: number;
      source: string;
    }[];
  }

  /** Writes whole documents (each replacing any earlier version with the same source) in one transaction. */
  async replaceDocuments(batch: readonly DocumentWrite[], defaultScope: Scope = PUBLIC_SCOPE): Promise<number[]> {
    return this.db.transaction(() => batch.map((w) => this.replaceDocumentNow(w.doc, w.chunks, defaultScope)))();
  }

  private replaceDocumentNow(doc: DocumentInput, chunks: ChunkInput[], defaultScope: Scope): number {
    this.textCounts.clear();
    const tx = this.db.transaction(() => {
      const old = this.sql('SELECT id, scope FROM documents WHERE source = ?').get(doc.source) as
        { id: number; scope: string } | undefined;
      if (old) this.deleteDocumentNow(old.id);
      // a new version of a document keeps the scope it was given, unless a scope comes with it
      const scope = doc.scope ? scopeToJson(doc.scope) : (old?.scope ?? scopeToJson(defaultScope));
      const { lastInsertRowid } = this.db
        .prepare(
          'INSERT INTO documents (source, path, title, kind, url, content_hash, bytes, ingested_at, scope) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
        )
        .run(
          doc.source,
          doc.path,
          doc.title,
          doc.kind,
          doc.url,
          doc.contentHash,
          doc.bytes,
          new Date().toISOString(),
          scope,
        );
      this.bumpAccessVersion();
      const docId = Number(lastInsertRowid);
      const insChunk = this.sql(
        'INSERT INTO chunks (doc_id, ord, kind, heading_path, page, text, token_count, density, entities, entry) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
      );
      const insFts = this.sql('INSERT INTO chunks_fts (rowid, title, headings, body) VALUES (?, ?, ?, ?)');
      const insLabels = this.sql('INSERT INTO chunk_labels_fts (rowid, title, headings) VALUES (?, ?, ?)');
      const insWin = this.sql(
        'INSERT INTO windows (chunk_id, ord, char_start, char_end, token_count, vector) VALUES (?, ?, ?, ?, ?, ?)',
      );
      const insLog = this.sql("INSERT INTO index_log (window_id, op) VALUES (?, 'add')");
      for (const c of chunks) {
        const chunkId = Number(
          insChunk.run(
            docId,
            c.ord,
            c.kind,
            JSON.stringify(c.headingPath),
            c.page,
            c.text,
            c.tokenCount,
            c.density,
            JSON.stringify(c.entities),
            c.entry ? JSON.stringify(c.entry) : null,
          ).lastInsertRowid,
        );
        insFts.run(chunkId, doc.title, headingWords(c), c.text);
        insLabels.run(chunkId, doc.title, headingWords(c));
        for (const w of c.windows) {
          const wid = Number(
            insWin.run(chunkId, w.ord, w.charStart, w.charEnd, w.tokenCount, vectorToBlob(w.vector)).lastInsertRowid,
          );
          insLog.run(wid);
        }
      }
      return docId;
    });
    return tx();
  }

  async deleteDocument(docId: number): Promise<void> {
    this.db.transaction(() => {
      this.deleteDocumentNow(docId);
      this.bumpAccessVersion();
    })();
  }

  /** Changes who may see documents; returns how many changed. */
  async setScope(docIds: readonly number[], scope: Scope): Promise<number> {
    return this.db.transaction(() => {
      const n = this.sql('UPDATE documents SET scope = ? WHERE id IN (SELECT value FROM json_each(?))').run(
        scopeToJson(scope),
        JSON.stringify(docIds),
      ).changes;
      this.bumpAccessVersion();
      // cached retrieval results were computed under the old scopes
      this.sql('DELETE FROM query_cache').run();
      return n;
    })();
  }

  private bumpAccessVersion(): void {
    this.sql(
      "INSERT INTO meta (key, value) VALUES ('access_version', '1') ON CONFLICT(key) DO UPDATE SET value = CAST(value AS INTEGER) + 1",
    ).run();
  }

  /** Changes whenever a document is added, removed or re-scoped: the key of access caches. */
  async accessVersion(): Promise<number> {
    return Number(
      (this.sql('SELECT value FROM meta WHERE key = ?').get('access_version') as { value: string } | undefined)
        ?.value ?? '0',
    );
  }

  /** Every document's scope (null: unreadable). */
  async scopes(): Promise<Map<number, Scope | null>> {
    const out = new Map<number, Scope | null>();
    for (const r of this.sql('SELECT id, scope FROM documents').all() as { id: number; scope: string }[])
      out.set(r.id, scopeFromJson(r.scope));
    return out;
  }

  async ingestCursor(name: string): Promise<string | null> {
    return getMeta(this.db, `cursor:${name}`) ?? null;
  }

  async setIngestCursor(name: string, value: string): Promise<void> {
    setMeta(this.db, `cursor:${name}`, value);
  }

  async flagSource(entry: SourceActionEntry): Promise<void> {
    this.db.transaction(() => {
      if (entry.action === 'restore') this.sql('DELETE FROM source_flags WHERE source = ?').run(entry.source);
      else
        this.sql(
          'INSERT INTO source_flags (source, action, by_user, at) VALUES (?, ?, ?, ?) ON CONFLICT(source) DO UPDATE SET action = excluded.action, by_user = excluded.by_user, at = excluded.at',
        ).run(entry.source, entry.action, entry.by, entry.at);
      this.sql('INSERT INTO source_actions (source, action, by_user, at) VALUES (?, ?, ?, ?)').run(
        entry.source,
        entry.action,
        entry.by,
        entry.at,
      );
      this.bumpAccessVersion();
      // cached retrieval results were ranked with the old flags
      this.sql('DELETE FROM query_cache').run();
    })();
  }

  async sourceFlags(): Promise<SourceFlag[]> {
    return this.sql(
      'SELECT source, action, by_user AS "by", at FROM source_flags ORDER BY source',
    ).all() as SourceFlag[];
  }

  async flaggedDocuments(): Promise<{ hidden: Set<number>; demoted: Set<number> }> {
    const out = { hidden: new Set<number>(), demoted: new Set<number>() };
    const rows = this.sql(
      'SELECT d.id, f.action FROM source_flags f JOIN documents d ON d.source = f.source',
    ).all() as {
      id: number;
      action: SourceAction;
    }[];
    for (const r of rows) (r.action === 'hide' ? out.hidden : out.demoted).add(r.id);
    return out;
  }

  async sourceActions(limit: number): Promise<SourceActionEntry[]> {
    return this.sql('SELECT source, action, by_user AS "by", at FROM source_actions ORDER BY id DESC LIMIT ?').all(
      limit,
    ) as SourceActionEntry[];
  }

  private deleteDocumentNow(docId: number): void {
    this.textCounts.clear();
    this.sql(
      "INSERT INTO index_log (window_id, op) SELECT w.id, 'del' FROM windows w JOIN chunks c ON c.id = w.chunk_id WHERE c.doc_id = ?",
    ).run(docId);
    this.sql('DELETE FROM chunks_fts WHERE rowid IN (SELECT id FROM chunks WHERE doc_id = ?)').run(docId);
    this.sql('DELETE FROM chunk_labels_fts WHERE rowid IN (SELECT id FROM chunks WHERE doc_id = ?)').run(docId);
    this.sql('DELETE FROM windows WHERE chunk_id IN (SELECT id FROM chunks WHERE doc_id = ?)').run(docId);
    this.sql('DELETE FROM chunks WHERE doc_id = ?').run(docId);
    this.sql('DELETE FROM documents WHERE id = ?').run(docId);
  }

  async getChunks(ids: readonly number[]): Promise<Map<number, ChunkRow>> {
    const out = new Map<number, ChunkRow>();
    if (ids.length === 0) return out;
    const stmt = this.sql(`${CHUNK_SELECT} WHERE c.id IN (SELECT value FROM json_each(?))`);
    for (const r of stmt.all(JSON.stringify(ids)) as RawChunk[]) out.set(r.id, toChunk(r));
    return out;
  }

  async chunksOfDocument(docId: number): Promise<ChunkRow[]> {
    return (this.sql(`${CHUNK_SELECT} WHERE c.doc_id = ? ORDER BY c.ord`).all(docId) as RawChunk[]).map(toChunk);
  }

  async chunkIdsOfDocument(docId: number): Promise<number[]> {
    return (this.sql('SELECT id FROM chunks WHERE doc_id = ? ORDER BY ord').all(docId) as { id: number }[]).map(
      (r) => r.id,
    );
  }

  /** Window id → chunk id for the given windows (dropping any no longer in SQLite). */
  async windowChunks(windowIds: readonly number[]): Promise<Map<number, number>> {
    const out = new Map<number, number>();
    if (windowIds.length === 0) return out;
    const rows = this.sql('SELECT id, chunk_id FROM windows WHERE id IN (SELECT value FROM json_each(?))').all(
      JSON.stringify(windowIds),
    ) as { id: number; chunk_id: number }[];
    for (const r of rows) out.set(r.id, r.chunk_id);
    return out;
  }

  async windowsOfChunks(chunkIds: readonly number[]): Promise<WindowRow[]> {
    if (chunkIds.length === 0) return [];
    const rows = this.db
      .prepare(
        'SELECT id, chunk_id, ord, char_start, char_end, token_count, vector FROM windows WHERE chunk_id IN (SELECT value FROM json_each(?)) ORDER BY chunk_id, ord',
      )
      .all(JSON.stringify(chunkIds)) as {
      id: number;
      chunk_id: number;
      ord: number;
      char_start: number;
      char_end: number;
      token_count: number;
      vector: Buffer;
    }[];
    return rows.map((r) => ({
      id: r.id,
      chunkId: r.chunk_id,
      ord: r.ord,
      charStart: r.char_start,
      charEnd: r.char_end,
      tokenCount: r.token_count,
      vector: blobToVector(r.vector),
    }));
  }

  /** BM25 over chunks (title, headings, body): FTS5's own, scores returned as positive numbers, higher is better. */
  async searchText(
    query: TextQuery,
    limit: number,
    weights: [number, number, number] = [2.0, 1.0, 1.0],
    docIds: ReadonlySet<number> | null = null,
  ): Promise<{ chunkId: number; score: number }[]> {
    const match = fts5Match(query);
    if (!match) return [];
    // with an access filter, only chunks of allowed documents are ranked at all
    const rows = (
      docIds
        ? this.db
            .prepare(
              `SELECT rowid AS id, -bm25(chunks_fts, ?, ?, ?) AS score FROM chunks_fts WHERE chunks_fts MATCH ?
               AND rowid IN (SELECT id FROM chunks WHERE doc_id IN (SELECT value FROM json_each(?))) ORDER BY score DESC LIMIT ?`,
            )
            .all(weights[0], weights[1], weights[2], match, docIdsJson(docIds), limit)
        : this.db
            .prepare(
              `SELECT rowid AS id, -bm25(chunks_fts, ?, ?, ?) AS score FROM chunks_fts WHERE chunks_fts MATCH ? ORDER BY score DESC LIMIT ?`,
            )
            .all(weights[0], weights[1], weights[2], match, limit)
    ) as { id: number; score: number }[];
    return rows.map((r) => ({ chunkId: r.id, score: r.score }));
  }

  /**
   * How many chunks (of the given documents) match an FTS5 query, counted up to `cap`: the work is
   * bounded by the cap, not by the corpus. Unfiltered counts are kept until the store changes.
   */
  async countTextMatches(
    queries: readonly TextQuery[],
    cap: number,
    docIds: ReadonlySet<number> | null = null,
  ): Promise<number[]> {
    // in process, a count each costs no round trip
    return queries.map((q) => this.countOf(q, cap, docIds));
  }

  private countOf(query: TextQuery, cap: number, docIds: ReadonlySet<number> | null): number {
    const match = fts5Match(query);
    if (!match) return 0;
    const key = `${cap}\u0000${match}`;
    if (!docIds) {
      this.refreshTextCounts();
      const hit = this.textCounts.get(key);
      if (hit !== undefined) return hit;
    }
    const only = docIds ? ' AND rowid IN (SELECT id FROM chunks WHERE doc_id IN (SELECT value FROM json_each(?)))' : '';
    const params: unknown[] = docIds ? [match, docIdsJson(docIds), cap] : [match, cap];
    const n = (
      this.sql(`SELECT count(*) AS n FROM (SELECT 1 FROM chunks_fts WHERE chunks_fts MATCH ?${only} LIMIT ?)`).get(
        ...params,
      ) as { n: number }
    ).n;
    if (!docIds) this.textCounts.set(key, n);
    return n;
  }

  /**
   * Counts change with the documents only (never with scopes, as they are unfiltered): this
   * process's writes clear them (replaceDocument, deleteDocumentNow), another's show as a newer
   * index log position, without a query per count.
   */
  private refreshTextCounts(): void {
    if (this.index.appliedSeq === this.textCountsSeq) return;
    this.textCounts.clear();
    this.textCountsSeq = this.index.appliedSeq;
  }

  /**
   * Chunks an entity (a query of all its terms) may link to, in bounded work: those whose
   * title or headings contain it, best first (BM25 over titles and headings only, so the work grows
   * with how many titles name it), and up to `mentioned` others that merely mention it (in stored
   * order: ranking every mention would read the whole posting list of a common name).
   */
  async entityMentions(
    queries: readonly TextQuery[],
    limits: { labelled: number; mentioned: number },
    docIds: ReadonlySet<number> | null = null,
  ): Promise<EntityMentions[]> {
    // in process, a query each costs no round trip
    return queries.map((q) => this.mentionsOf(q, limits, docIds));
  }

  private mentionsOf(
    query: TextQuery,
    limits: { labelled: number; mentioned: number },
    docIds: ReadonlySet<number> | null,
  ): EntityMentions {
    const match = fts5Match(query);
    if (!match) return { labelled: [], mentioned: [] };
    const only = docIds ? ' AND c.doc_id IN (SELECT value FROM json_each(?))' : '';
    const params: unknown[] = docIds ? [match, docIdsJson(docIds)] : [match];
    const hits = (rows: { chunk_id: number; doc_id: number; title: string; heading_path: string }[]): MentionHit[] =>
      rows.map((r) => ({
        chunkId: r.chunk_id,
        docId: r.doc_id,
        title: r.title,
        headingPath: JSON.parse(r.heading_path) as string[],
      }));
    const labelled = this.db
      .prepare(
        `SELECT l.rowid AS chunk_id, d.id AS doc_id, d.title, c.heading_path FROM chunk_labels_fts l JOIN chunks c ON c.id = l.rowid JOIN documents d ON d.id = c.doc_id
         WHERE chunk_labels_fts MATCH ?${only} ORDER BY bm25(chunk_labels_fts, 2.0, 1.0) LIMIT ?`,
      )
      .all(...params, limits.labelled) as { chunk_id: number; doc_id: number; title: string; heading_path: string }[];
    const mentioned = this.db
      .prepare(
        `SELECT f.rowid AS chunk_id, d.id AS doc_id, d.title, c.heading_path FROM chunks_fts f JOIN chunks c ON c.id = f.rowid JOIN documents d ON d.id = c.doc_id
         WHERE chunks_fts MATCH ?${only} LIMIT ?`,
      )
      .all(...params, limits.mentioned + labelled.length) as {
      chunk_id: number;
      doc_id: number;
      title: string;
      heading_path: string;
    }[];
    const seen = new Set(labelled.map((r) => r.chunk_id));
    return {
      labelled: hits(labelled),
      mentioned: hits(mentioned.filter((r) => !seen.has(r.chunk_id)).slice(0, limits.mentioned)),
    };
  }

  /** Chunks of at least `minTokens` tokens, with how many windows each has (the reranker's training pairs). */
  async chunksWithWindowCounts(minTokens: number): Promise<{ id: number; text: string; windows: number }[]> {
    return this.db
      .prepare(
        'SELECT c.id, c.text, (SELECT count(*) FROM windows w WHERE w.chunk_id = c.id) AS windows FROM chunks c WHERE c.token_count >= ?',
      )
      .all(minTokens) as {
      id: number;
      text: string;
      windows: number;
    }[];
  }

  /** The query cache's entry for a key (JSON and when it was written, in seconds), if any. */
  async cachedQuery(key: string): Promise<{ value: string; createdAt: number } | null> {
    const row = this.sql('SELECT value, created_at FROM query_cache WHERE key = ?').get(key) as
      { value: string; created_at: number } | undefined;
    return row ? { value: row.value, createdAt: row.created_at } : null;
  }

  async cacheQuery(key: string, value: string, createdAt: number): Promise<void> {
    this.db
      .prepare(
        'INSERT INTO query_cache (key, value, created_at) VALUES (?, ?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value, created_at = excluded.created_at',
      )
      .run(key, value, createdAt);
  }

  /** Drops one cached query (a key), or every entry written before `before` seconds; returns how many. */
  async dropCachedQueries(which: { key: string } | { before: number }): Promise<number> {
    return 'key' in which
      ? this.sql('DELETE FROM query_cache WHERE key = ?').run(which.key).changes
      : this.sql('DELETE FROM query_cache WHERE created_at < ?').run(which.before).changes;
  }

  /** Every window's own text with its document title and headings, in id order (for re-embedding). */
  async windowTexts(): Promise<{ id: number; title: string; headingPath: string[]; text: string }[]> {
    // window offsets are JavaScript (UTF-16) offsets: the text is cut here, not by SQLite's substr
    const rows = this.db
      .prepare(
        `SELECT w.id, w.char_start, w.char_end, c.text AS chunk, d.title, c.heading_path
         FROM windows w JOIN chunks c ON c.id = w.chunk_id JOIN documents d ON d.id = c.doc_id ORDER BY w.id`,
      )
      .all() as {
      id: number;
      char_start: number;
      char_end: number;
      chunk: string;
      title: string;
      heading_path: string;
    }[];
    return rows.map((r) => ({
      id: r.id,
      title: r.title,
      headingPath: JSON.parse(r.heading_path) as string[],
      text: r.chunk.slice(r.char_start, r.char_end),
    }));
  }

  /**
   * Re-embedding with another model: `begin` marks the store as holding two models' vectors (it
   * refuses to open meanwhile), `setVectors` replaces a batch in one transaction, and `finish`
   * records the model, drops cached retrievals and rebuilds the index from the new vectors.
   */
  async beginReembedding(model: string): Promise<void> {
    setMeta(this.db, 'reindexing', model);
  }

  async setVectors(batch: readonly { id: number; vector: Float32Array }[]): Promise<void> {
    const update = this.sql('UPDATE windows SET vector = ? WHERE id = ?');
    this.db.transaction(() => {
      for (const w of batch) update.run(vectorToBlob(w.vector), w.id);
    })();
  }

  async finishReembedding(model: string, dimension: number): Promise<void> {
    this.db.transaction(() => {
      setMeta(this.db, 'embedding_model', model);
      setMeta(this.db, 'embedding_dimension', String(dimension));
      this.sql("DELETE FROM meta WHERE key = 'reindexing'").run();
    })();
    this.sql('DELETE FROM query_cache').run();
    await this.index.rebuild();
    await this.index.save();
  }

  /** Every window's id and vector (exact search, for measuring the HNSW index's recall). */
  async allWindowVectors(): Promise<{ id: number; vector: Float32Array }[]> {
    return (this.sql('SELECT id, vector FROM windows').all() as { id: number; vector: Buffer }[]).map((w) => ({
      id: w.id,
      vector: blobToVector(w.vector),
    }));
  }

  async counts(): Promise<{ documents: number; chunks: number; windows: number }> {
    const c = (t: string) => (this.sql(`SELECT count(*) AS n FROM ${t}`).get() as { n: number }).n;
    return { documents: c('documents'), chunks: c('chunks'), windows: c('windows') };
  }

  async stats(): Promise<StoreStats> {
    const fileBytes = (f: string) => (fs.existsSync(f) ? fs.statSync(f).size : 0);
    return {
      ...(await this.counts()),
      model: this.model,
      dimension: this.index.dimension,
      dbBytes: fileBytes(this.dbFile) + fileBytes(`${this.dbFile}-wal`),
      indexBytes: this.index.fileBytes(),
      indexSize: await this.index.size(),
    };
  }

  /** hnswlib inserts in the process as fast as it builds: nothing to set aside. */
  async beginBulkLoad(): Promise<boolean> {
    return false;
  }

  async finishBulkLoad(): Promise<void> {}

  /** Brings the in-memory index up to date with writes made since (by this or another process). */
  async syncIndex(): Promise<number> {
    return this.index.catchUp();
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
