import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { UserError } from '../../errors.js';

export type DB = Database.Database;

/** The embedded store's database file, in the data folder. */
export const DB_FILE = 'ragask.db';

/**
 * Versioned migrations, applied in order inside one transaction each; `PRAGMA user_version` holds
 * the version reached. A migration is never edited once released: add a new one.
 */
export const MIGRATIONS: { version: number; name: string; sql: string }[] = [
  {
    version: 1,
    name: 'documents, chunks, windows, FTS5, index log',
    sql: `
      CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
      CREATE TABLE documents (
        id INTEGER PRIMARY KEY,
        source TEXT NOT NULL UNIQUE,
        path TEXT NOT NULL,
        title TEXT NOT NULL,
        kind TEXT NOT NULL,
        url TEXT,
        content_hash TEXT NOT NULL,
        bytes INTEGER NOT NULL,
        ingested_at TEXT NOT NULL
      );
      CREATE INDEX documents_path ON documents(path);
      CREATE TABLE chunks (
        id INTEGER PRIMARY KEY,
        doc_id INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
        ord INTEGER NOT NULL,
        kind TEXT NOT NULL,
        heading_path TEXT NOT NULL,
        page INTEGER,
        text TEXT NOT NULL,
        token_count INTEGER NOT NULL,
        density REAL NOT NULL,
        entities TEXT NOT NULL
      );
      CREATE INDEX chunks_doc ON chunks(doc_id, ord);
      -- AUTOINCREMENT: a window id is an HNSW label and must never be reused for other text.
      CREATE TABLE windows (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        chunk_id INTEGER NOT NULL REFERENCES chunks(id) ON DELETE CASCADE,
        ord INTEGER NOT NULL,
        char_start INTEGER NOT NULL,
        char_end INTEGER NOT NULL,
        token_count INTEGER NOT NULL,
        vector BLOB NOT NULL
      );
      CREATE INDEX windows_chunk ON windows(chunk_id, ord);
      CREATE VIRTUAL TABLE chunks_fts USING fts5(title, headings, body, tokenize = 'porter unicode61 remove_diacritics 2');
      -- Every window added to or removed from SQLite, in order: the HNSW index replays what it has not seen.
      CREATE TABLE index_log (seq INTEGER PRIMARY KEY AUTOINCREMENT, window_id INTEGER NOT NULL, op TEXT NOT NULL CHECK (op IN ('add', 'del')));
    `,
  },
  {
    version: 2,
    name: 'query cache',
    sql: `
      CREATE TABLE query_cache (key TEXT PRIMARY KEY, value TEXT NOT NULL, created_at INTEGER NOT NULL);
      CREATE INDEX query_cache_created ON query_cache(created_at);
    `,
  },
  {
    version: 3,
    name: 'access scope per document',
    sql: `
      ALTER TABLE documents ADD COLUMN scope TEXT NOT NULL DEFAULT '{"kind":"public"}';
      INSERT INTO meta (key, value) VALUES ('access_version', '1') ON CONFLICT(key) DO NOTHING;
    `,
  },
  {
    version: 4,
    name: 'labels (title and headings) of every chunk, for entity links',
    // An entity's own document is found through its title or a heading: searched here, the work
    // grows with how many titles name it, not with how many chunks of a large corpus mention it.
    sql: `
      CREATE VIRTUAL TABLE chunk_labels_fts USING fts5(title, headings, tokenize = 'porter unicode61 remove_diacritics 2');
      INSERT INTO chunk_labels_fts (rowid, title, headings) SELECT rowid, title, headings FROM chunks_fts;
    `,
  },
  {
    version: 5,
    name: 'admin actions on sources: hide, demote, restore',
    // kept by source, not document id: a re-ingested source keeps its flag
    sql: `
      CREATE TABLE source_flags (
        source TEXT PRIMARY KEY,
        action TEXT NOT NULL CHECK (action IN ('hide', 'demote')),
        by_user TEXT NOT NULL,
        at INTEGER NOT NULL
      );
      CREATE TABLE source_actions (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        source TEXT NOT NULL,
        action TEXT NOT NULL CHECK (action IN ('hide', 'demote', 'restore')),
        by_user TEXT NOT NULL,
        at INTEGER NOT NULL
      );
    `,
  },
  {
    version: 6,
    name: 'the entry (term and kind) each chunk belongs to',
    sql: `ALTER TABLE chunks ADD COLUMN entry TEXT;`,
  },
];

export const SCHEMA_VERSION = MIGRATIONS[MIGRATIONS.length - 1]!.version;

const SQLITE_MAGIC = 'SQLite format 3\0';

/** Refuses a file that is not SQLite before better-sqlite3 sees it, with the recovery command. */
function checkHeader(file: string): void {
  if (!fs.existsSync(file)) return;
  const size = fs.statSync(file).size;
  if (size === 0) return;
  const fd = fs.openSync(file, 'r');
  const buf = Buffer.alloc(16);
  try {
    fs.readSync(fd, buf, 0, 16, 0);
  } finally {
    fs.closeSync(fd);
  }
  if (buf.toString('latin1') !== SQLITE_MAGIC) {
    throw new UserError(
      `${file} is not a SQLite database (corrupt or foreign file): restore it from a backup, or move it away and run \`ragask ingest <your sources>\` to rebuild it`,
      'store_corrupt',
    );
  }
}

export interface OpenOptions {
  readonly?: boolean;
}

export function openDatabase(file: string, opts: OpenOptions = {}): DB {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  checkHeader(file);
  let db: DB;
  try {
    db = new Database(file, { readonly: opts.readonly ?? false, fileMustExist: opts.readonly ?? false });
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.pragma('foreign_keys = ON');
    db.pragma('busy_timeout = 5000');
    // Touch the schema so a damaged file fails here, not halfway through a write.
    db.prepare('SELECT count(*) FROM sqlite_master').get();
  } catch (e) {
    if (e instanceof UserError) throw e;
    throw new UserError(
      `${file}: cannot open the store (${(e as Error).message}); restore it from a backup, or move it away and run \`ragask ingest <your sources>\` to rebuild it`,
      'store_corrupt',
    );
  }
  if (!opts.readonly) migrate(db, file);
  return db;
}

export function migrate(db: DB, file = 'the store'): number {
  const current = db.pragma('user_version', { simple: true }) as number;
  if (current > SCHEMA_VERSION) {
    throw new UserError(
      `${file} has schema version ${current}, newer than this ragask (${SCHEMA_VERSION}); upgrade ragask or use another RAGASK_DATA_DIR`,
      'store_version',
    );
  }
  // each migration reads the version under the write lock, so processes opening a store together
  // (replicas starting at once) apply it once
  for (const m of MIGRATIONS) {
    if (m.version <= current) continue;
    db.transaction(() => {
      if ((db.pragma('user_version', { simple: true }) as number) >= m.version) return;
      db.exec(m.sql);
      db.pragma(`user_version = ${m.version}`);
    }).immediate();
  }
  return db.pragma('user_version', { simple: true }) as number;
}

export function getMeta(db: DB, key: string): string | undefined {
  const row = db.prepare('SELECT value FROM meta WHERE key = ?').get(key) as { value: string } | undefined;
  return row?.value;
}

export function setMeta(db: DB, key: string, value: string): void {
  db.prepare('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value').run(
    key,
    value,
  );
}
