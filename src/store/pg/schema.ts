import type { HnswParams } from '../types.js';
import { inTransaction, type PgMigration, type PgPool } from './db.js';

/** The postings of chunks, from their tsvectors (every chunk; WRITE_POSTINGS: those of some documents). */
const POSTINGS_FROM_CHUNKS = `INSERT INTO postings (lexeme, chunk_id, doc_id, fts_len, in_title, in_headings, in_body, positions, weights)
  SELECT u.lexeme, c.id, c.doc_id, c.fts_len, cardinality(array_positions(u.weights, 'A')),
    cardinality(array_positions(u.weights, 'B')),
    cardinality(u.weights) - cardinality(array_positions(u.weights, 'A')) - cardinality(array_positions(u.weights, 'B')),
    u.positions, u.weights
  FROM chunks c, unnest(c.fts) u`;
export const WRITE_POSTINGS = `${POSTINGS_FROM_CHUNKS} WHERE c.doc_id = ANY($1::bigint[])`;

/**
 * The store's schema in PostgreSQL. Full-text search uses its own configuration `ragask`: the
 * english Snowball stemmer without a stopword list (FTS5's porter tokenizer drops no words either),
 * so a question's terms match the same words in both backends. The vector column's dimension and
 * the HNSW parameters come from the model and settings the store is created with.
 */
function firstMigration(dimension: number, hnsw: HnswParams): PgMigration {
  return {
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
  };
}

/** The migrations after the first, in order (a released one is never edited: add a new one). */
const LATER_MIGRATIONS: PgMigration[] = [
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
  {
    version: 6,
    name: "the id of each chunk's section in its hosted page (links to the section)",
    sql: `ALTER TABLE chunks ADD COLUMN IF NOT EXISTS anchor TEXT;`,
  },
];

export function storeMigrations(dimension: number, hnsw: HnswParams): PgMigration[] {
  return [firstMigration(dimension, hnsw), ...LATER_MIGRATIONS];
}

/** Memory for building the HNSW index in one pass (pgvector builds slower once its graph outgrows it). */
const INDEX_BUILD_MEMORY = '512MB';

/**
 * The windows' HNSW index, built over every stored row if it is missing (after a bulk load, or one
 * that died before its end); nothing when it is there.
 */
export async function ensureVectorIndex(pool: PgPool, hnsw: HnswParams): Promise<void> {
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

/** The Slack app's tables in PostgreSQL (the same rows as the SQLite backend's, in one migration). */
export const PG_SLACK_MIGRATIONS: PgMigration[] = [
  {
    version: 1,
    name: 'events ledger with leases, threads, button states, feedback',
    sql: `
      CREATE TABLE slack_events (
        event_id TEXT PRIMARY KEY,
        status TEXT NOT NULL CHECK (status IN ('received', 'answered', 'ignored')),
        channel TEXT, answer_ts TEXT, owner TEXT, payload TEXT,
        attempts INTEGER NOT NULL DEFAULT 0, lease_until BIGINT,
        created_at BIGINT NOT NULL, updated_at BIGINT NOT NULL);
      CREATE INDEX slack_events_open ON slack_events (status, updated_at);
      CREATE TABLE slack_threads (
        key TEXT PRIMARY KEY, channel TEXT NOT NULL, thread_ts TEXT NOT NULL,
        participants TEXT NOT NULL, turns TEXT NOT NULL,
        created_at BIGINT NOT NULL, updated_at BIGINT NOT NULL, expires_at BIGINT NOT NULL);
      CREATE TABLE slack_states (
        key TEXT PRIMARY KEY, channel TEXT NOT NULL, thread_ts TEXT NOT NULL, message_ts TEXT NOT NULL,
        owner TEXT NOT NULL, result TEXT NOT NULL,
        created_at BIGINT NOT NULL, expires_at BIGINT NOT NULL, used_at BIGINT, used_by TEXT);
      CREATE TABLE feedback (
        id BIGSERIAL PRIMARY KEY, state_key TEXT NOT NULL, channel TEXT NOT NULL, thread_ts TEXT, message_ts TEXT NOT NULL, "user" TEXT NOT NULL,
        value TEXT NOT NULL CHECK (value IN ('helpful', 'not_helpful')),
        question TEXT NOT NULL, answer TEXT NOT NULL, evidence TEXT NOT NULL, created_at BIGINT NOT NULL,
        UNIQUE (state_key, "user"));
    `,
  },
  { version: 2, name: 'why an answer was not helpful', sql: 'ALTER TABLE feedback ADD COLUMN reason TEXT;' },
  {
    version: 3,
    name: "each person's questions, for their App Home",
    sql: `
      CREATE TABLE slack_questions (
        id BIGSERIAL PRIMARY KEY, "user" TEXT NOT NULL, channel TEXT NOT NULL, thread_ts TEXT NOT NULL, message_ts TEXT NOT NULL,
        question TEXT NOT NULL, answer TEXT, asked_at BIGINT NOT NULL,
        UNIQUE (channel, message_ts, "user"));
      CREATE INDEX slack_questions_user ON slack_questions ("user", asked_at);
    `,
  },
];
