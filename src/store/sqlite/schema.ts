/** The embedded backend's tables, written once, as the migrations that make them: the store's and the conversations'. */
import type Database from 'better-sqlite3';

type DB = Database.Database;

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
  {
    version: 7,
    name: "the id of each chunk's section in its hosted page (links to the section)",
    sql: `ALTER TABLE chunks ADD COLUMN anchor TEXT;`,
  },
];

/**
 * What the Slack app remembers, in the same SQLite file as the store (so it survives restarts and
 * is backed up with it) but in its own tables, with its own schema version, over its own
 * connection: the core store knows nothing of Slack.
 *  - events:   each delivered event id and whether it was answered (duplicate deliveries, restarts)
 *  - threads:  per channel:thread_ts, who took part and the last turns (follow-ups)
 *  - states:   the engine state behind an answer message, for its buttons (TTL, used once)
 *  - feedback: helpful / not helpful, with the question, answer and evidence ids
 */
export const SLACK_MIGRATIONS: string[] = [
  `CREATE TABLE slack_events (
     event_id TEXT PRIMARY KEY,
     status TEXT NOT NULL CHECK (status IN ('received', 'answered', 'ignored')),
     channel TEXT, answer_ts TEXT, owner TEXT,
     created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL);
   CREATE TABLE slack_threads (
     key TEXT PRIMARY KEY, channel TEXT NOT NULL, thread_ts TEXT NOT NULL,
     participants TEXT NOT NULL, turns TEXT NOT NULL,
     created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL, expires_at INTEGER NOT NULL);
   CREATE TABLE slack_states (
     key TEXT PRIMARY KEY, channel TEXT NOT NULL, thread_ts TEXT NOT NULL, message_ts TEXT NOT NULL,
     owner TEXT NOT NULL, result TEXT NOT NULL,
     created_at INTEGER NOT NULL, expires_at INTEGER NOT NULL, used_at INTEGER, used_by TEXT);
   CREATE TABLE feedback (
     id INTEGER PRIMARY KEY, channel TEXT NOT NULL, thread_ts TEXT, message_ts TEXT NOT NULL, user TEXT NOT NULL,
     value TEXT NOT NULL CHECK (value IN ('helpful', 'not_helpful')),
     question TEXT NOT NULL, answer TEXT NOT NULL, evidence TEXT NOT NULL, created_at INTEGER NOT NULL,
     UNIQUE (channel, message_ts, user));`,
  // v2: events keep their payload (answered on restart if the process died first); feedback is
  // per answer version (a continued answer in the same message is a new answer). Old feedback
  // rows get a key made of their message, which no state has, so they stay listed as they were.
  `ALTER TABLE slack_events ADD COLUMN payload TEXT;
   CREATE TABLE feedback_v2 (
     id INTEGER PRIMARY KEY, state_key TEXT NOT NULL, channel TEXT NOT NULL, thread_ts TEXT, message_ts TEXT NOT NULL, user TEXT NOT NULL,
     value TEXT NOT NULL CHECK (value IN ('helpful', 'not_helpful')),
     question TEXT NOT NULL, answer TEXT NOT NULL, evidence TEXT NOT NULL, created_at INTEGER NOT NULL,
     UNIQUE (state_key, user));
   INSERT INTO feedback_v2 (id, state_key, channel, thread_ts, message_ts, user, value, question, answer, evidence, created_at)
     SELECT id, 'message:' || channel || ':' || message_ts, channel, thread_ts, message_ts, user, value, question, answer, evidence, created_at FROM feedback;
   DROP TABLE feedback;
   ALTER TABLE feedback_v2 RENAME TO feedback;`,
  // v3: how often an event was taken up, for the recovery sweep's backoff and for giving up
  `ALTER TABLE slack_events ADD COLUMN attempts INTEGER NOT NULL DEFAULT 0;`,
  // v4: a claim is a lease, renewed while its owner answers: another replica (on any machine)
  // takes the event over once it lapses
  `ALTER TABLE slack_events ADD COLUMN lease_until INTEGER;`,
  // v5: why an answer was not helpful (wrong, outdated, not what was asked), one click after it
  `ALTER TABLE feedback ADD COLUMN reason TEXT;`,
  // v6: each person's questions, for their App Home (threads expire with the buttons)
  `CREATE TABLE slack_questions (
     id INTEGER PRIMARY KEY, user TEXT NOT NULL, channel TEXT NOT NULL, thread_ts TEXT NOT NULL, message_ts TEXT NOT NULL,
     question TEXT NOT NULL, answer TEXT, asked_at INTEGER NOT NULL,
     UNIQUE (channel, message_ts, user));
   CREATE INDEX slack_questions_user ON slack_questions (user, asked_at);`,
];

/**
 * One migration at a time, each reading the version under the write lock: processes opening the
 * ledger together (replicas starting at once) apply each migration once.
 */
export function migrateConversations(db: DB): void {
  const step = db.transaction((): boolean => {
    const current = Number(getMeta(db, 'slack_schema_version') ?? '0');
    if (current >= SLACK_MIGRATIONS.length) return false;
    db.exec(SLACK_MIGRATIONS[current]!);
    setMeta(db, 'slack_schema_version', String(current + 1));
    return true;
  });
  while (step.immediate()) {
    // the next one
  }
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
