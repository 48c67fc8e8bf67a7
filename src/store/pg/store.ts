import { LRUCache } from 'lru-cache';
import { UserError } from '../../errors.js';
import type { Logger } from '../../log.js';
import { silentLogger } from '../../log.js';
import { PUBLIC_SCOPE, scopeFromJson, scopeToJson, type Scope } from '../access.js';
import type { HnswParams } from '../types.js';
import type { DocumentWrite, Store, TextQuery } from '../interfaces.js';
import { redactUrl } from '../open.js';
import { inTransaction, migrate, openPool, type PgClient, type PgMigration, type PgPool } from './db.js';
import { hasIterativeScan, PgVectorIndex } from './vectors.js';
import { CHUNK_SELECT, headingWords, toChunk, toDocument, type RawChunk } from '../rows.js';
import type {
  ChunkRow,
  DocumentRow,
  EntityMentions,
  MentionHit,
  SourceAction,
  SourceActionEntry,
  SourceFlag,
  StoreStats,
  WindowRow,
} from '../types.js';

/** The postings of chunks, from their tsvectors (every chunk; WRITE_POSTINGS: those of some documents). */
const POSTINGS_FROM_CHUNKS = `INSERT INTO postings (lexeme, chunk_id, doc_id, fts_len, in_title, in_headings, in_body, positions, weights)
  SELECT u.lexeme, c.id, c.doc_id, c.fts_len, cardinality(array_positions(u.weights, 'A')),
    cardinality(array_positions(u.weights, 'B')),
    cardinality(u.weights) - cardinality(array_positions(u.weights, 'A')) - cardinality(array_positions(u.weights, 'B')),
    u.positions, u.weights
  FROM chunks c, unnest(c.fts) u`;
const WRITE_POSTINGS = `${POSTINGS_FROM_CHUNKS} WHERE c.doc_id = ANY($1::bigint[])`;

/**
 * The store's schema in PostgreSQL. Full-text search uses its own configuration `ragask`: the
 * english Snowball stemmer without a stopword list (FTS5's porter tokenizer drops no words either),
 * so a question's terms match the same words in both backends. The vector column's dimension and
 * the HNSW parameters come from the model and settings the store is created with.
 */
function storeMigrations(dimension: number, hnsw: HnswParams): PgMigration[] {
  return [
    {
      version: 1,
      name: 'documents, chunks, windows (pgvector HNSW), full-text search, query cache',
      sql: `
        -- pgvector's type where every schema finds it (a schema of ragask's own searches public next)
        CREATE EXTENSION IF NOT EXISTS vector SCHEMA public;
        CREATE TABLE ragask_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
        INSERT INTO ragask_meta (key, value) VALUES ('generation', '0'), ('access_version', '1');
        CREATE TEXT SEARCH DICTIONARY ragask_stem (TEMPLATE = snowball, Language = english);
        CREATE TEXT SEARCH CONFIGURATION ragask (COPY = simple);
        ALTER TEXT SEARCH CONFIGURATION ragask ALTER MAPPING FOR asciiword, asciihword, hword_asciipart, word, hword, hword_part WITH ragask_stem;
        -- how many tokens a tsvector holds (the document length of BM25)
        CREATE FUNCTION ragask_token_count(v tsvector) RETURNS integer LANGUAGE sql IMMUTABLE PARALLEL SAFE
          AS $$ SELECT coalesce(sum(coalesce(array_length(positions, 1), 1)), 0)::integer FROM unnest(v) $$;
        -- the full-text vectors of a chunk from its words (see ftsWords)
        CREATE FUNCTION ragask_fts(title text, headings text, body text) RETURNS tsvector LANGUAGE sql IMMUTABLE PARALLEL SAFE
          AS $$ SELECT setweight(to_tsvector('ragask', title), 'A') || setweight(to_tsvector('ragask', headings), 'B') || to_tsvector('ragask', body) $$;
        CREATE FUNCTION ragask_labels(title text, headings text) RETURNS tsvector LANGUAGE sql IMMUTABLE PARALLEL SAFE
          AS $$ SELECT setweight(to_tsvector('ragask', title), 'A') || setweight(to_tsvector('ragask', headings), 'B') $$;
        CREATE AGGREGATE ragask_tsquery_or(tsquery) (SFUNC = tsquery_or, STYPE = tsquery);
        CREATE AGGREGATE ragask_tsquery_and(tsquery) (SFUNC = tsquery_and, STYPE = tsquery);
        CREATE TABLE documents (
          id BIGSERIAL PRIMARY KEY,
          source TEXT NOT NULL UNIQUE,
          path TEXT NOT NULL,
          title TEXT NOT NULL,
          kind TEXT NOT NULL,
          url TEXT,
          content_hash TEXT NOT NULL,
          bytes BIGINT NOT NULL,
          ingested_at TEXT NOT NULL,
          scope TEXT NOT NULL
        );
        CREATE INDEX documents_source_prefix ON documents (source text_pattern_ops);
        CREATE TABLE chunks (
          id BIGSERIAL PRIMARY KEY,
          doc_id BIGINT NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
          ord INTEGER NOT NULL,
          kind TEXT NOT NULL,
          heading_path TEXT NOT NULL,
          page INTEGER,
          text TEXT NOT NULL,
          token_count INTEGER NOT NULL,
          density REAL NOT NULL,
          entities TEXT NOT NULL,
          -- title (A), headings (B) and body (D) in one vector, weighed per column at query time as FTS5 does
          fts tsvector NOT NULL,
          -- its token count: the document length of BM25
          fts_len INTEGER NOT NULL,
          -- title and headings alone: entity links
          labels tsvector NOT NULL
        );
        CREATE INDEX chunks_doc ON chunks (doc_id, ord);
        CREATE INDEX chunks_fts ON chunks USING gin (fts);
        CREATE INDEX chunks_labels ON chunks USING gin (labels);
        CREATE TABLE windows (
          id BIGSERIAL PRIMARY KEY,
          chunk_id BIGINT NOT NULL REFERENCES chunks(id) ON DELETE CASCADE,
          doc_id BIGINT NOT NULL,
          ord INTEGER NOT NULL,
          char_start INTEGER NOT NULL,
          char_end INTEGER NOT NULL,
          token_count INTEGER NOT NULL,
          embedding vector(${dimension}) NOT NULL
        );
        CREATE INDEX windows_chunk ON windows (chunk_id, ord);
        CREATE INDEX windows_doc ON windows (doc_id);
        CREATE INDEX windows_embedding ON windows USING hnsw (embedding vector_cosine_ops) WITH (m = ${hnsw.m}, ef_construction = ${hnsw.efConstruction});
        CREATE TABLE query_cache (key TEXT PRIMARY KEY, value TEXT NOT NULL, created_at BIGINT NOT NULL);
        CREATE INDEX query_cache_created ON query_cache (created_at);
      `,
    },
    {
      version: 2,
      name: 'admin actions on sources: hide, demote, restore',
      // kept by source, not document id: a re-ingested source keeps its flag
      sql: `
        CREATE TABLE source_flags (
          source TEXT PRIMARY KEY,
          action TEXT NOT NULL CHECK (action IN ('hide', 'demote')),
          by_user TEXT NOT NULL,
          at BIGINT NOT NULL
        );
        CREATE TABLE source_actions (
          id BIGSERIAL PRIMARY KEY,
          source TEXT NOT NULL,
          action TEXT NOT NULL CHECK (action IN ('hide', 'demote', 'restore')),
          by_user TEXT NOT NULL,
          at BIGINT NOT NULL
        );
      `,
    },
    {
      version: 3,
      name: 'an inverted term table for BM25 (postings)',
      // BM25 reads the postings of the query's words only, where it unnested every matching chunk's
      // whole tsvector; each row keeps what FTS5 keeps (positions and their columns) and the chunk's
      // length and document, so scoring never goes back to the chunks. (Kept as it first shipped;
      // version 4 gives the table its present shape.)
      sql: `
        CREATE TABLE postings (
          lexeme TEXT NOT NULL,
          chunk_id BIGINT NOT NULL REFERENCES chunks(id) ON DELETE CASCADE,
          doc_id BIGINT NOT NULL,
          fts_len INTEGER NOT NULL,
          positions SMALLINT[] NOT NULL,
          weights TEXT[] NOT NULL,
          PRIMARY KEY (lexeme, chunk_id)
        );
        CREATE INDEX postings_chunk ON postings (chunk_id);
      `,
    },
    {
      version: 4,
      name: 'postings read from their index alone (per-column counts, INCLUDE)',
      // a one-word term's BM25 needs only the chunk, its length, its document and the word's count per
      // column: with those in the primary key's leaf pages its postings are read without the table.
      // Rebuilt from the chunks' tsvectors, which hold everything the table holds
      sql: `
        DROP TABLE postings;
        CREATE TABLE postings (
          lexeme TEXT NOT NULL,
          chunk_id BIGINT NOT NULL REFERENCES chunks(id) ON DELETE CASCADE,
          doc_id BIGINT NOT NULL,
          fts_len INTEGER NOT NULL,
          -- how often the word stands in the title (A), the headings (B) and the body: a word's BM25
          -- frequency is these counts weighed per column; positions serve phrases
          in_title SMALLINT NOT NULL,
          in_headings SMALLINT NOT NULL,
          in_body SMALLINT NOT NULL,
          positions SMALLINT[] NOT NULL,
          weights TEXT[] NOT NULL,
          PRIMARY KEY (lexeme, chunk_id) INCLUDE (doc_id, fts_len, in_title, in_headings, in_body)
        );
        CREATE INDEX postings_chunk ON postings (chunk_id);
        ${POSTINGS_FROM_CHUNKS};
        ANALYZE postings;
      `,
    },
    {
      version: 5,
      name: 'the entry (term and kind) each chunk belongs to',
      sql: `ALTER TABLE chunks ADD COLUMN IF NOT EXISTS entry TEXT;`,
    },
  ];
}

/** Memory for building the HNSW index in one pass (pgvector builds slower once its graph outgrows it). */
const INDEX_BUILD_MEMORY = '512MB';

/**
 * The windows' HNSW index, built over every stored row if it is missing (after a bulk load, or one
 * that died before its end); nothing when it is there.
 */
async function ensureVectorIndex(pool: PgPool, hnsw: HnswParams): Promise<void> {
  const present = (await pool.query<{ at: string | null }>("SELECT to_regclass('windows_embedding') AS at")).rows[0]!
    .at;
  if (present) return;
  await inTransaction(pool, async (c) => {
    await c.query(`SET LOCAL maintenance_work_mem = '${INDEX_BUILD_MEMORY}'`);
    await c.query(
      `CREATE INDEX IF NOT EXISTS windows_embedding ON windows USING hnsw (embedding vector_cosine_ops) WITH (m = ${hnsw.m}, ef_construction = ${hnsw.efConstruction})`,
    );
  });
}

/**
 * A vector from pgvector's binary form (vector_send: dimension and a reserved word as int16, then
 * float4s, big-endian), read as bytes instead of parsing hundreds of decimals from its text form.
 */
function vectorFromBinary(bytes: Buffer): Float32Array {
  const dim = bytes.readUInt16BE(0);
  const out = new Float32Array(dim);
  for (let i = 0; i < dim; i++) out[i] = bytes.readFloatBE(4 + 4 * i);
  return out;
}

/** PostgreSQL's type OID of float4 (real). */
const FLOAT4_OID = 700;

/**
 * The vectors of a write as one PostgreSQL float4[] in its binary form (node-postgres sends a Buffer
 * as binary): dimensions, flags, element type, length and lower bound, then each float as its length
 * and 4 big-endian bytes. As text, every digit of every vector was formatted and then escaped in
 * JavaScript: a quarter of a first load's time, most of it in the garbage collector.
 */
function float4ArrayBinary(vectors: readonly Float32Array[], dimension: number): Buffer {
  // the SQL cuts the floats into vectors by the dimension: one of another length would shift the rest
  const wrong = vectors.find((v) => v.length !== dimension);
  if (wrong) throw new Error(`a vector of ${wrong.length} dimensions, where the store holds ${dimension}`);
  const count = vectors.length * dimension;
  const out = Buffer.allocUnsafe(20 + 8 * count);
  out.writeInt32BE(1, 0);
  out.writeInt32BE(0, 4);
  out.writeInt32BE(FLOAT4_OID, 8);
  out.writeInt32BE(count, 12);
  out.writeInt32BE(1, 16);
  let at = 20;
  for (const v of vectors)
    for (const x of v) {
      out.writeInt32BE(4, at);
      out.writeFloatBE(x, at + 4);
      at += 8;
    }
  return out;
}

/** SQL for the `t.n`-th (1-based) vector of a write: `floats` is the parameter holding float4ArrayBinary of them, `dim` their dimension's. */
function vectorAt(floats: string, dim: string): string {
  return `((${floats}::real[])[((t.n - 1) * ${dim}::int + 1)::int : (t.n * ${dim}::int)::int])::vector`;
}

/**
 * A batch cut where a source comes again, so that each part holds a source once (a later version
 * of a document in the same batch replaces the earlier one, as it would in a later batch).
 */
function withDistinctSources(batch: readonly DocumentWrite[]): DocumentWrite[][] {
  const parts: DocumentWrite[][] = [[]];
  let seen = new Set<string>();
  for (const w of batch) {
    if (seen.has(w.doc.source)) {
      parts.push([]);
      seen = new Set();
    }
    seen.add(w.doc.source);
    parts[parts.length - 1]!.push(w);
  }
  return parts;
}

/** Joins a query's terms into one text parameter (a term is words, never this character). */
const TERM_SEPARATOR = '\u0001';

/** FTS5's BM25 constants (k1, b), so both backends rank alike. */
const BM25_K1 = 1.2;
const BM25_B = 0.75;

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
 * The words of a text as the full-text index reads them: runs of letters and digits, everything else
 * a word break. This is how FTS5's unicode61 tokenizer and the query side (queryTerms) split text;
 * PostgreSQL's own parser would read "TS-40" as "ts" and the number −40, or "3.5" as one token.
 */
function ftsWords(text: string): string {
  return text
    .normalize('NFKC')
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean)
    .join(' ');
}

/**
 * The PostgreSQL backend of the Store: documents, chunks and windows in tables, vectors in pgvector
 * (PgVectorIndex), full-text search with BM25 computed from an inverted term table (postings), and
 * the Slack state in the same database. Every replica reads and writes the same rows; a write by
 * any of them is seen by the others at their next query.
 */
export class PgStore implements Store {
  readonly index: PgVectorIndex;
  /** Chunk counts per term and the corpus statistics, until the store changes (see syncIndex). */
  private readonly textCounts = new LRUCache<string, { n: number; exact: boolean }>({ max: 50_000 });
  private corpusStats: { generation: number; chunks: number; avgLength: number } | null = null;

  private constructor(
    readonly pool: PgPool,
    readonly model: string,
    dimension: number,
    private readonly hnsw: HnswParams,
    private readonly url: string,
    private readonly log: Logger,
    iterativeScan: boolean,
  ) {
    this.index = new PgVectorIndex(pool, dimension, hnsw.efSearch, iterativeScan);
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
      await store.syncIndex();
      return store;
    } catch (e) {
      await pool.end().catch(() => undefined);
      throw e;
    }
  }

  private async meta(key: string, client: PgPool | PgClient = this.pool): Promise<string | undefined> {
    return (await client.query<{ value: string }>('SELECT value FROM ragask_meta WHERE key = $1', [key])).rows[0]
      ?.value;
  }

  private async setMeta(key: string, value: string, client: PgPool | PgClient = this.pool): Promise<void> {
    await client.query(
      'INSERT INTO ragask_meta (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = excluded.value',
      [key, value],
    );
  }

  /** Vectors of another model are garbage to this one: refuse with the re-index command instead. */
  private async checkModel(model: string, dimension: number): Promise<void> {
    const where = redactUrl(this.url);
    const pending = await this.meta('reindexing');
    if (pending)
      throw new UserError(
        `${where}: a re-index to ${pending} was interrupted, so its vectors are mixed: run \`ragask reindex\` (with RAGASK_MODEL/RAGASK_MODEL_VARIANT selecting ${pending}) to finish it`,
        'model_mismatch',
      );
    const stored = await this.meta('embedding_model');
    const windows = (await this.pool.query('SELECT 1 FROM windows LIMIT 1')).rowCount ?? 0;
    if (!stored || windows === 0) {
      const storedDimension = Number((await this.meta('embedding_dimension')) ?? dimension);
      if (storedDimension !== dimension)
        throw new UserError(
          `${where} holds ${storedDimension}-dimensional vectors, but the model gives ${dimension}: use a new database for this model`,
          'model_mismatch',
        );
      await this.setMeta('embedding_model', model);
      await this.setMeta('embedding_dimension', String(dimension));
      return;
    }
    if (stored !== model) {
      throw new UserError(
        `${where} was embedded with ${stored}, but RAGASK_MODEL/RAGASK_MODEL_VARIANT select ${model}: run \`ragask reindex\` to re-embed every window, or set them back to ${stored}`,
        'model_mismatch',
      );
    }
  }

  /** Counts a committed change: the generation keys every cache of every replica. */
  private async bump(client: PgClient, access: boolean): Promise<void> {
    await client.query(
      `UPDATE ragask_meta SET value = (value::bigint + 1)::text WHERE key IN ('generation'${access ? ", 'access_version'" : ''})`,
    );
  }

  async getDocumentBySource(source: string): Promise<DocumentRow | undefined> {
    const r = await this.pool.query('SELECT * FROM documents WHERE source = $1', [source]);
    return r.rows[0] ? toDocument(r.rows[0] as Record<string, unknown>) : undefined;
  }

  async listDocuments(): Promise<DocumentRow[]> {
    return (await this.pool.query('SELECT * FROM documents ORDER BY source COLLATE "C"')).rows.map((r) =>
      toDocument(r as Record<string, unknown>),
    );
  }

  async sourcesUnder(prefix: string): Promise<{ id: number; source: string }[]> {
    return (
      await this.pool.query<{ id: number; source: string }>(
        'SELECT id, source FROM documents WHERE left(source, length($1)) = $1',
        [prefix],
      )
    ).rows;
  }

  /**
   * Writes whole documents in one transaction: each replaces any earlier version with its source
   * (under a lock on that source, so two ingests of one file from two machines write it in turn).
   */
  async replaceDocuments(batch: readonly DocumentWrite[], defaultScope: Scope = PUBLIC_SCOPE): Promise<number[]> {
    if (batch.length === 0) return [];
    const ids = await inTransaction(this.pool, async (c) => {
      const out: number[] = [];
      for (const part of withDistinctSources(batch)) out.push(...(await this.writeDocuments(c, part, defaultScope)));
      await this.bump(c, true);
      return out;
    });
    this.textCounts.clear();
    return ids;
  }

  /**
   * Documents of distinct sources, in six statements whatever their number: a round trip per
   * statement per document was most of a PostgreSQL ingest of many small documents (the encoder
   * holds the JavaScript thread, so each round trip waited for the next gap between its batches).
   * Ids are given in the batch's order, and a document's chunks get consecutive ids in its order.
   */
  private async writeDocuments(c: PgClient, batch: readonly DocumentWrite[], defaultScope: Scope): Promise<number[]> {
    const sources = batch.map((w) => w.doc.source);
    // locks taken in one order by every writer, so two ingests of overlapping batches cannot deadlock
    await c.query(
      'SELECT pg_advisory_xact_lock(h) FROM (SELECT hashtext(s) AS h FROM unnest($1::text[]) s ORDER BY h) AS l',
      [sources.map((x) => `ragask-doc:${x}`)],
    );
    const old = new Map(
      (
        await c.query<{ source: string; scope: string }>(
          'DELETE FROM documents WHERE source = ANY($1::text[]) RETURNING source, scope',
          [sources],
        )
      ).rows.map((r) => [r.source, r.scope]),
    );
    // a new version of a document keeps the scope it was given, unless a scope comes with it
    const scopes = batch.map((w) =>
      w.doc.scope ? scopeToJson(w.doc.scope) : (old.get(w.doc.source) ?? scopeToJson(defaultScope)),
    );
    const now = new Date().toISOString();
    const docRows = await c.query<{ id: number; source: string }>(
      `INSERT INTO documents (source, path, title, kind, url, content_hash, bytes, ingested_at, scope)
       SELECT source, path, title, kind, url, content_hash, bytes, $8::text, scope
       FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::bigint[], $9::text[])
         WITH ORDINALITY AS t(source, path, title, kind, url, content_hash, bytes, scope, n)
       ORDER BY n
       RETURNING id, source`,
      [
        sources,
        batch.map((w) => w.doc.path),
        batch.map((w) => w.doc.title),
        batch.map((w) => w.doc.kind),
        batch.map((w) => w.doc.url),
        batch.map((w) => w.doc.contentHash),
        batch.map((w) => w.doc.bytes),
        now,
        scopes,
      ],
    );
    const docIdBySource = new Map(docRows.rows.map((r) => [r.source, Number(r.id)]));
    const docIds = sources.map((x) => docIdBySource.get(x)!);
    const chunks = batch.flatMap((w, i) => {
      const titleWords = ftsWords(w.doc.title);
      return w.chunks.map((x) => ({ docId: docIds[i]!, titleWords, x }));
    });
    if (chunks.length === 0) return docIds;
    const inserted = await c.query<{ id: number; doc_id: number; ord: number }>(
      `INSERT INTO chunks (doc_id, ord, kind, heading_path, page, text, token_count, density, entities, entry, fts, fts_len, labels)
       SELECT doc_id, ord, kind, heading_path, page, text, token_count, density, entities, entry, v.fts, ragask_token_count(v.fts), ragask_labels(title, headings)
       FROM unnest($1::bigint[], $2::text[], $3::int[], $4::text[], $5::text[], $6::text[], $7::int[], $8::text[], $9::int[], $10::real[], $11::text[], $12::text[], $13::text[])
         WITH ORDINALITY AS t(doc_id, title, ord, kind, heading_path, headings, page, text, token_count, density, entities, body, entry, n),
       LATERAL (SELECT ragask_fts(title, headings, body) AS fts) v
       ORDER BY n
       RETURNING id, doc_id, ord`,
      [
        chunks.map((y) => y.docId),
        chunks.map((y) => y.titleWords),
        chunks.map((y) => y.x.ord),
        chunks.map((y) => y.x.kind),
        chunks.map((y) => JSON.stringify(y.x.headingPath)),
        chunks.map((y) => ftsWords(headingWords(y.x))),
        chunks.map((y) => y.x.page),
        chunks.map((y) => y.x.text),
        chunks.map((y) => y.x.tokenCount),
        chunks.map((y) => y.x.density),
        chunks.map((y) => JSON.stringify(y.x.entities)),
        chunks.map((y) => ftsWords(y.x.text)),
        chunks.map((y) => (y.x.entry ? JSON.stringify(y.x.entry) : null)),
      ],
    );
    await c.query(WRITE_POSTINGS, [docIds]);
    const chunkId = new Map(inserted.rows.map((r) => [`${r.doc_id}:${r.ord}`, Number(r.id)]));
    const windows = chunks.flatMap((y) =>
      y.x.windows.map((w) => ({ docId: y.docId, chunkId: chunkId.get(`${y.docId}:${y.x.ord}`)!, w })),
    );
    if (windows.length > 0) {
      await c.query(
        `INSERT INTO windows (chunk_id, doc_id, ord, char_start, char_end, token_count, embedding)
         SELECT chunk_id, doc_id, ord, char_start, char_end, token_count, ${vectorAt('$7', '$8')}
         FROM unnest($1::bigint[], $2::bigint[], $3::int[], $4::int[], $5::int[], $6::int[]) WITH ORDINALITY AS t(chunk_id, doc_id, ord, char_start, char_end, token_count, n)
         ORDER BY n`,
        [
          windows.map((x) => x.chunkId),
          windows.map((x) => x.docId),
          windows.map((x) => x.w.ord),
          windows.map((x) => x.w.charStart),
          windows.map((x) => x.w.charEnd),
          windows.map((x) => x.w.tokenCount),
          float4ArrayBinary(
            windows.map((x) => x.w.vector),
            this.index.dimension,
          ),
          this.index.dimension,
        ],
      );
    }
    return docIds;
  }

  async deleteDocument(docId: number): Promise<void> {
    await inTransaction(this.pool, async (c) => {
      await c.query('DELETE FROM documents WHERE id = $1', [docId]);
      await this.bump(c, true);
    });
    this.textCounts.clear();
  }

  async setScope(docIds: readonly number[], scope: Scope): Promise<number> {
    return inTransaction(this.pool, async (c) => {
      const n =
        (
          await c.query('UPDATE documents SET scope = $1 WHERE id = ANY($2::bigint[])', [
            scopeToJson(scope),
            [...docIds],
          ])
        ).rowCount ?? 0;
      await this.bump(c, true);
      // cached retrieval results were computed under the old scopes
      await c.query('DELETE FROM query_cache');
      return n;
    });
  }

  async accessVersion(): Promise<number> {
    return Number((await this.meta('access_version')) ?? '0');
  }

  async scopes(): Promise<Map<number, Scope | null>> {
    const out = new Map<number, Scope | null>();
    for (const r of (await this.pool.query<{ id: number; scope: string }>('SELECT id, scope FROM documents')).rows)
      out.set(r.id, scopeFromJson(r.scope));
    return out;
  }

  async ingestCursor(name: string): Promise<string | null> {
    return (await this.meta(`cursor:${name}`)) ?? null;
  }

  async setIngestCursor(name: string, value: string): Promise<void> {
    await this.setMeta(`cursor:${name}`, value);
  }

  async flagSource(entry: SourceActionEntry): Promise<void> {
    await inTransaction(this.pool, async (c) => {
      if (entry.action === 'restore') await c.query('DELETE FROM source_flags WHERE source = $1', [entry.source]);
      else
        await c.query(
          'INSERT INTO source_flags (source, action, by_user, at) VALUES ($1, $2, $3, $4) ON CONFLICT (source) DO UPDATE SET action = excluded.action, by_user = excluded.by_user, at = excluded.at',
          [entry.source, entry.action, entry.by, entry.at],
        );
      await c.query('INSERT INTO source_actions (source, action, by_user, at) VALUES ($1, $2, $3, $4)', [
        entry.source,
        entry.action,
        entry.by,
        entry.at,
      ]);
      await this.bump(c, true);
      // cached retrieval results were ranked with the old flags
      await c.query('DELETE FROM query_cache');
    });
  }

  async sourceFlags(): Promise<SourceFlag[]> {
    return (
      await this.pool.query<SourceFlag>(
        'SELECT source, action, by_user AS "by", at FROM source_flags ORDER BY source COLLATE "C"',
      )
    ).rows;
  }

  async flaggedDocuments(): Promise<{ hidden: Set<number>; demoted: Set<number> }> {
    const out = { hidden: new Set<number>(), demoted: new Set<number>() };
    const rows = await this.pool.query<{ id: number; action: SourceAction }>(
      'SELECT d.id, f.action FROM source_flags f JOIN documents d ON d.source = f.source',
    );
    for (const r of rows.rows) (r.action === 'hide' ? out.hidden : out.demoted).add(r.id);
    return out;
  }

  async sourceActions(limit: number): Promise<SourceActionEntry[]> {
    return (
      await this.pool.query<SourceActionEntry>(
        'SELECT source, action, by_user AS "by", at FROM source_actions ORDER BY id DESC LIMIT $1',
        [limit],
      )
    ).rows;
  }

  async getChunks(ids: readonly number[]): Promise<Map<number, ChunkRow>> {
    const out = new Map<number, ChunkRow>();
    if (ids.length === 0) return out;
    for (const r of (
      await this.pool.query<RawChunk>({
        name: 'chunks',
        text: `${CHUNK_SELECT} WHERE c.id = ANY($1::bigint[])`,
        values: [[...ids]],
      })
    ).rows)
      out.set(r.id, toChunk(r));
    return out;
  }

  async chunksOfDocument(docId: number): Promise<ChunkRow[]> {
    return (await this.pool.query<RawChunk>(`${CHUNK_SELECT} WHERE c.doc_id = $1 ORDER BY c.ord`, [docId])).rows.map(
      toChunk,
    );
  }

  async chunkIdsOfDocument(docId: number): Promise<number[]> {
    return (
      await this.pool.query<{ id: number }>({
        name: 'chunk-ids-of-doc',
        text: 'SELECT id FROM chunks WHERE doc_id = $1 ORDER BY ord',
        values: [docId],
      })
    ).rows.map((r) => r.id);
  }

  async windowChunks(windowIds: readonly number[]): Promise<Map<number, number>> {
    const out = new Map<number, number>();
    if (windowIds.length === 0) return out;
    for (const r of (
      await this.pool.query<{ id: number; chunk_id: number }>({
        name: 'window-chunks',
        text: 'SELECT id, chunk_id FROM windows WHERE id = ANY($1::bigint[])',
        values: [[...windowIds]],
      })
    ).rows)
      out.set(r.id, r.chunk_id);
    return out;
  }

  async windowsOfChunks(chunkIds: readonly number[]): Promise<WindowRow[]> {
    if (chunkIds.length === 0) return [];
    const rows = await this.pool.query<{
      id: number;
      chunk_id: number;
      ord: number;
      char_start: number;
      char_end: number;
      token_count: number;
      embedding: Buffer;
    }>({
      name: 'windows-of-chunks',
      text: 'SELECT id, chunk_id, ord, char_start, char_end, token_count, vector_send(embedding) AS embedding FROM windows WHERE chunk_id = ANY($1::bigint[]) ORDER BY chunk_id, ord',
      values: [[...chunkIds]],
    });
    return rows.rows.map((r) => ({
      id: r.id,
      chunkId: r.chunk_id,
      ord: r.ord,
      charStart: r.char_start,
      charEnd: r.char_end,
      tokenCount: r.token_count,
      vector: vectorFromBinary(r.embedding),
    }));
  }

  async windowTexts(): Promise<{ id: number; title: string; headingPath: string[]; text: string }[]> {
    const rows = await this.pool.query<{
      id: number;
      char_start: number;
      char_end: number;
      chunk: string;
      title: string;
      heading_path: string;
    }>(
      `SELECT w.id, w.char_start, w.char_end, c.text AS chunk, d.title, c.heading_path FROM windows w JOIN chunks c ON c.id = w.chunk_id JOIN documents d ON d.id = c.doc_id ORDER BY w.id`,
    );
    // window offsets are JavaScript (UTF-16) offsets: the text is cut here, not in SQL
    return rows.rows.map((r) => ({
      id: r.id,
      title: r.title,
      headingPath: JSON.parse(r.heading_path) as string[],
      text: r.chunk.slice(r.char_start, r.char_end),
    }));
  }

  async allWindowVectors(): Promise<{ id: number; vector: Float32Array }[]> {
    const rows = await this.pool.query<{ id: number; embedding: Buffer }>(
      'SELECT id, vector_send(embedding) AS embedding FROM windows',
    );
    return rows.rows.map((r) => ({ id: r.id, vector: vectorFromBinary(r.embedding) }));
  }

  async chunksWithWindowCounts(minTokens: number): Promise<{ id: number; text: string; windows: number }[]> {
    return (
      await this.pool.query<{ id: number; text: string; windows: number }>(
        'SELECT c.id, c.text, (SELECT count(*) FROM windows w WHERE w.chunk_id = c.id)::bigint AS windows FROM chunks c WHERE c.token_count >= $1 ORDER BY c.id',
        [minTokens],
      )
    ).rows;
  }

  /** The corpus size and mean chunk length (BM25's N and avgdl), once per store generation. */
  private async bm25Corpus(): Promise<{ chunks: number; avgLength: number }> {
    const generation = this.index.appliedSeq;
    if (this.corpusStats?.generation === generation) return this.corpusStats;
    const r = (
      await this.pool.query<{ n: number; avg: number | null }>(
        'SELECT count(*)::bigint AS n, avg(fts_len)::float8 AS avg FROM chunks',
      )
    ).rows[0]!;
    this.corpusStats = { generation, chunks: r.n, avgLength: r.avg ?? 1 };
    return this.corpusStats;
  }

  /**
   * BM25 as FTS5 computes it, from PostgreSQL's term statistics: for each term, IDF from the number
   * of chunks holding it (ln((N − n + 0.5)/(n + 0.5)), at least 1e-6), its frequency in the chunk
   * with each column weighted (title, headings, body, read from the tsvector's position weights),
   * and length normalisation by the chunk's token count (k1 1.2, b 0.75). A phrase ("kx 220") counts
   * where its words stand next to each other, in order, read from the tsvector's positions, as FTS5
   * counts phrase hits. Only chunks matching the query (and of the allowed documents) are scored.
   */
  async searchText(
    query: TextQuery,
    limit: number,
    weights: [number, number, number] = [2.0, 1.0, 1.0],
    docIds: ReadonlySet<number> | null = null,
  ): Promise<{ chunkId: number; score: number }[]> {
    if (query.terms.length === 0 || (docIds && docIds.size === 0)) return [];
    const { chunks: n, avgLength } = await this.bm25Corpus();
    const dfs = await this.countTextMatches(
      query.terms.map((t) => ({ terms: [t], match: 'any' as const })),
      Number.MAX_SAFE_INTEGER,
    );
    const idf = dfs.map((df) => Math.max(1e-6, Math.log((n - df + 0.5) / (df + 0.5))));
    const only = docIds ? 'AND p.doc_id = ANY($8::bigint[])' : '';
    const onlyChunks = docIds ? 'AND c.doc_id = ANY($8::bigint[])' : '';
    const params: unknown[] = [query.terms, idf, weights[0], weights[1], weights[2], avgLength, limit];
    if (docIds) params.push([...docIds]);
    const rows = await this.pool.query<{ id: number; score: number }>({
      // prepared once per connection: one plan for every search of this shape
      name: `bm25-${query.match}${docIds ? '-in' : ''}`,
      text: `WITH q AS (
         -- each word of each term, at its place in the term (1 for a single word)
         SELECT t.term, t.idf, l.lexeme, l.positions[1] AS idx, count(*) OVER (PARTITION BY t.term) AS words
         FROM unnest($1::text[], $2::float8[]) AS t(term, idf), unnest(to_tsvector('ragask', t.term)) AS l
       ),
       single AS (
         -- a one-word term: its frequency is its posting's counts per column, weighed (read through the
         -- index: OFFSET 0 keeps the planner from a join that scans the whole table, which it picks
         -- when it cannot tell how few rows a word has)
         SELECT p.chunk_id AS id, p.fts_len, q.term, q.idf,
                $3::float8 * p.in_title + $4::float8 * p.in_headings + $5::float8 * p.in_body AS tf
         FROM q CROSS JOIN LATERAL (
           SELECT p.chunk_id, p.fts_len, p.in_title, p.in_headings, p.in_body FROM postings p
           WHERE q.words = 1 AND p.lexeme = q.lexeme ${only} OFFSET 0
         ) p
       ),
       occ AS (
         -- a phrase's words, in the chunks that hold the phrase ("arthur s" must not read every "s"),
         -- each occurrence by where its phrase would start
         SELECT p.chunk_id AS id, p.fts_len, q.term, q.idf, q.words, q.idx, x.pos - q.idx AS start, x.w
         FROM q CROSS JOIN LATERAL (
           -- the chunks that hold the phrase first, from the tsvector index (OFFSET 0: not a join)
           SELECT c.id FROM chunks c WHERE q.words > 1 AND c.fts @@ phraseto_tsquery('ragask', q.term) ${onlyChunks} OFFSET 0
         ) m
         CROSS JOIN LATERAL (SELECT p.* FROM postings p WHERE p.lexeme = q.lexeme AND p.chunk_id = m.id OFFSET 0) p
         CROSS JOIN LATERAL unnest(p.positions, p.weights) AS x(pos, w)
       ),
       hits AS (
         -- a phrase occurs where all its words sit in order from one start; it counts with its column's weight
         SELECT id, fts_len, term, idf, CASE min(w) WHEN 'A' THEN $3::float8 WHEN 'B' THEN $4::float8 ELSE $5::float8 END AS weight
         FROM occ GROUP BY id, fts_len, term, idf, words, start HAVING count(DISTINCT idx) = words
       ),
       terms AS (
         SELECT id, fts_len, idf, tf FROM single
         UNION ALL
         SELECT id, fts_len, idf, sum(weight) AS tf FROM hits GROUP BY id, fts_len, term, idf
       )
       SELECT id, sum(idf * tf * ${BM25_K1 + 1} / (tf + ${BM25_K1} * (${1 - BM25_B} + ${BM25_B} * fts_len / $6::float8)))::float8 AS score
       FROM terms GROUP BY id ${query.match === 'all' ? 'HAVING count(*) = (SELECT count(DISTINCT t) FROM unnest($1::text[]) AS t)' : ''}
       ORDER BY score DESC, id LIMIT $7`,
      values: params,
    });
    return rows.rows.map((r) => ({ chunkId: r.id, score: r.score }));
  }

  /**
   * How many chunks (of the given documents) match each query, counted up to `cap`, in one round trip
   * for all that are not cached; unfiltered counts are kept until the store changes.
   */
  async countTextMatches(
    queries: readonly TextQuery[],
    cap: number,
    docIds: ReadonlySet<number> | null = null,
  ): Promise<number[]> {
    const keyOf = (q: TextQuery) => `${q.match}\u0000${q.terms.join('\u0001')}`;
    const out = queries.map((q) => {
      if (q.terms.length === 0) return 0;
      // a count below its cap is exact, and answers any later cap too (BM25's IDF asks uncapped)
      const hit = docIds ? undefined : this.textCounts.get(keyOf(q));
      return hit && (hit.exact || cap <= hit.n) ? Math.min(hit.n, cap) : null;
    });
    const asked = queries.map((q, i) => ({ q, i })).filter(({ i }) => out[i] === null);
    if (asked.length === 0) return out as number[];
    const only = docIds ? 'AND doc_id = ANY($4::bigint[])' : '';
    const params: unknown[] = [
      asked.map(({ q }) => q.terms.join(TERM_SEPARATOR)),
      asked.map(({ q }) => q.match),
      Math.min(cap, Number.MAX_SAFE_INTEGER),
    ];
    if (docIds) params.push([...docIds]);
    // one word is counted from its postings (an index range); a phrase, or several terms, from the
    // chunks' tsvectors
    const rows = (
      await this.pool.query<{ i: number; n: number }>({
        name: `count${docIds ? '-in' : ''}`,
        text: `WITH u AS (
           SELECT u.i, string_to_array(u.terms, '${TERM_SEPARATOR}') AS terms, u.m
           FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS u(terms, m, i)
         ),
         w AS (
           SELECT u.*, v.lexemes, v.positions FROM u CROSS JOIN LATERAL (
             SELECT array_agg(l.lexeme) AS lexemes, sum(coalesce(array_length(l.positions, 1), 1)) AS positions
             FROM unnest(to_tsvector('ragask', u.terms[1])) AS l
           ) v
         )
         SELECT w.i, CASE WHEN cardinality(w.terms) = 1 AND w.positions = 1
           THEN (SELECT count(*) FROM (SELECT 1 FROM postings WHERE lexeme = w.lexemes[1] ${only} LIMIT $3) s)
           ELSE (SELECT count(*) FROM (SELECT 1 FROM chunks WHERE fts @@ (
                   SELECT CASE WHEN w.m = 'any' THEN ragask_tsquery_or(phraseto_tsquery('ragask', t))
                               ELSE ragask_tsquery_and(phraseto_tsquery('ragask', t)) END
                   FROM unnest(w.terms) AS t) ${only} LIMIT $3) s)
           END::bigint AS n
         FROM w`,
        values: params,
      })
    ).rows;
    for (const r of rows) {
      const { q, i } = asked[Number(r.i) - 1]!;
      const n = Number(r.n);
      out[i] = n;
      if (!docIds) this.textCounts.set(keyOf(q), { n, exact: n < cap });
    }
    return out as number[];
  }

  /**
   * Chunks each entity may link to, in bounded work and one round trip for all of them: those whose
   * title or headings hold all its terms, best first (ts_rank over titles and headings; the caller
   * scores each by Jaccard anyway), then up to `mentioned` others that merely mention it, in stored
   * order.
   */
  async entityMentions(
    queries: readonly TextQuery[],
    limits: { labelled: number; mentioned: number },
    docIds: ReadonlySet<number> | null = null,
  ): Promise<EntityMentions[]> {
    const out: EntityMentions[] = queries.map(() => ({ labelled: [], mentioned: [] }));
    const asked = queries.map((q, i) => ({ q, i })).filter(({ q }) => q.terms.length > 0);
    if (asked.length === 0) return out;
    const only = docIds ? 'AND c.doc_id = ANY($5::bigint[])' : '';
    const params: unknown[] = [
      asked.map(({ q }) => q.terms.join(TERM_SEPARATOR)),
      asked.map(({ q }) => q.match),
      limits.labelled,
      // a mention that is also labelled is left out below: read as many more as could be
      limits.mentioned + limits.labelled,
    ];
    if (docIds) params.push([...docIds]);
    const rows = (
      await this.pool.query<{
        i: number;
        labelled: boolean;
        chunk_id: number;
        doc_id: number;
        title: string;
        heading_path: string;
      }>({
        name: docIds ? 'entity-mentions-in' : 'entity-mentions',
        text: `WITH q AS (
           SELECT u.i, (SELECT CASE WHEN u.m = 'any' THEN ragask_tsquery_or(phraseto_tsquery('ragask', t))
                                    ELSE ragask_tsquery_and(phraseto_tsquery('ragask', t)) END
                        FROM unnest(string_to_array(u.terms, '${TERM_SEPARATOR}')) AS t) AS tsq
           FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS u(terms, m, i)
         )
         SELECT * FROM (
           SELECT q.i, true AS labelled, l.* FROM q CROSS JOIN LATERAL (
             SELECT c.id AS chunk_id, c.doc_id, d.title, c.heading_path,
                    row_number() OVER (ORDER BY ts_rank('{0, 0, 0.5, 1.0}', c.labels, q.tsq, 1) DESC, c.id) AS n
             FROM chunks c JOIN documents d ON d.id = c.doc_id WHERE c.labels @@ q.tsq ${only}
             ORDER BY n LIMIT $3
           ) l
           UNION ALL
           SELECT q.i, false, m.* FROM q CROSS JOIN LATERAL (
             SELECT c.id AS chunk_id, c.doc_id, d.title, c.heading_path, row_number() OVER () AS n
             FROM chunks c JOIN documents d ON d.id = c.doc_id WHERE c.fts @@ q.tsq ${only} LIMIT $4
           ) m
         ) x ORDER BY i, labelled DESC, n`,
        values: params,
      })
    ).rows;
    for (const r of rows) {
      const hit: MentionHit = {
        chunkId: r.chunk_id,
        docId: r.doc_id,
        title: r.title,
        headingPath: JSON.parse(r.heading_path) as string[],
      };
      const mentions = out[asked[Number(r.i) - 1]!.i]!;
      (r.labelled ? mentions.labelled : mentions.mentioned).push(hit);
    }
    for (const m of out) {
      const seen = new Set(m.labelled.map((h) => h.chunkId));
      m.mentioned = m.mentioned.filter((h) => !seen.has(h.chunkId)).slice(0, limits.mentioned);
    }
    return out;
  }

  async cachedQuery(key: string): Promise<{ value: string; createdAt: number } | null> {
    const r = (
      await this.pool.query<{ value: string; created_at: number }>(
        'SELECT value, created_at FROM query_cache WHERE key = $1',
        [key],
      )
    ).rows[0];
    return r ? { value: r.value, createdAt: r.created_at } : null;
  }

  async cacheQuery(key: string, value: string, createdAt: number): Promise<void> {
    await this.pool.query(
      'INSERT INTO query_cache (key, value, created_at) VALUES ($1, $2, $3) ON CONFLICT (key) DO UPDATE SET value = excluded.value, created_at = excluded.created_at',
      [key, value, createdAt],
    );
  }

  async dropCachedQueries(which: { key: string } | { before: number }): Promise<number> {
    const r =
      'key' in which
        ? await this.pool.query('DELETE FROM query_cache WHERE key = $1', [which.key])
        : await this.pool.query('DELETE FROM query_cache WHERE created_at < $1', [which.before]);
    return r.rowCount ?? 0;
  }

  async beginReembedding(model: string): Promise<void> {
    await this.setMeta('reindexing', model);
  }

  async setVectors(batch: readonly { id: number; vector: Float32Array }[]): Promise<void> {
    await inTransaction(this.pool, async (c) => {
      await c.query(
        `UPDATE windows SET embedding = ${vectorAt('$2', '$3')}
         FROM unnest($1::bigint[]) WITH ORDINALITY AS t(id, n) WHERE windows.id = t.id`,
        [
          batch.map((w) => w.id),
          float4ArrayBinary(
            batch.map((w) => w.vector),
            this.index.dimension,
          ),
          this.index.dimension,
        ],
      );
      await this.bump(c, false);
    });
  }

  async finishReembedding(model: string, dimension: number): Promise<void> {
    if (dimension !== this.index.dimension)
      throw new UserError(
        `re-embedding into ${dimension} dimensions needs a new database (this one holds ${this.index.dimension})`,
        'model_mismatch',
      );
    await inTransaction(this.pool, async (c) => {
      await this.setMeta('embedding_model', model, c);
      await this.setMeta('embedding_dimension', String(dimension), c);
      await c.query("DELETE FROM ragask_meta WHERE key = 'reindexing'");
      await c.query('DELETE FROM query_cache');
      await this.bump(c, false);
    });
  }

  /**
   * pgvector updates its HNSW graph on every inserted row (about 5 ms a row on 2 cores) and builds
   * one over rows already there about ten times faster: a first load into an empty store drops the
   * index and builds it when done. Queries in between search exactly (nothing was there to answer
   * from); a load that dies in between gets its index at the next open, by whichever process.
   */
  async beginBulkLoad(): Promise<boolean> {
    const { empty } = (await this.pool.query<{ empty: boolean }>('SELECT NOT EXISTS (SELECT 1 FROM windows) AS empty'))
      .rows[0]!;
    if (!empty) return false;
    await this.pool.query('DROP INDEX IF EXISTS windows_embedding');
    return true;
  }

  async finishBulkLoad(): Promise<void> {
    await ensureVectorIndex(this.pool, this.hnsw);
  }

  /** Reads the store's change counter: every replica's caches key on it, so a write anywhere is seen at the next query. */
  async syncIndex(): Promise<number> {
    const generation = Number((await this.meta('generation')) ?? '0');
    const moved = generation - this.index.appliedSeq;
    if (moved !== 0) this.textCounts.clear();
    this.index.appliedSeq = generation;
    return Math.max(0, moved);
  }

  async counts(): Promise<{ documents: number; chunks: number; windows: number }> {
    const r = (
      await this.pool.query<{ documents: number; chunks: number; windows: number }>(
        'SELECT (SELECT count(*) FROM documents)::bigint AS documents, (SELECT count(*) FROM chunks)::bigint AS chunks, (SELECT count(*) FROM windows)::bigint AS windows',
      )
    ).rows[0]!;
    return { documents: r.documents, chunks: r.chunks, windows: r.windows };
  }

  async stats(): Promise<StoreStats> {
    const sizes = (
      await this.pool.query<{ db: number; idx: number }>(
        `SELECT (pg_total_relation_size('documents') + pg_total_relation_size('chunks') + pg_total_relation_size('windows') + pg_total_relation_size('query_cache'))::bigint AS db,
                coalesce(pg_relation_size(to_regclass('windows_embedding')), 0)::bigint AS idx`,
      )
    ).rows[0]!;
    const counts = await this.counts();
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
