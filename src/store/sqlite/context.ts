import type Database from 'better-sqlite3';
import { LRUCache } from 'lru-cache';
import type { DB } from './db.js';
import type { HnswIndex } from './hnsw.js';

/** How many unfiltered text-match counts are kept until the store changes. */
const TEXT_COUNTS_KEPT = 50_000;

/**
 * What the SQLite backend's rooms share: the database, its prepared statements, the HNSW index and
 * the text counts that every document write invalidates.
 */
export class SqliteContext {
  private readonly statements = new Map<string, Database.Statement>();
  /** countTextMatches' unfiltered counts, until the store changes (see SqliteTextSearch.refreshTextCounts). */
  readonly textCounts = new LRUCache<string, number>({ max: TEXT_COUNTS_KEPT });
  textCountsSeq = -1;

  constructor(
    readonly db: DB,
    readonly index: HnswIndex,
  ) {}

  /** A statement prepared once per SQL text: preparing costs more than most of these queries. */
  sql(text: string): Database.Statement {
    let st = this.statements.get(text);
    if (!st) {
      st = this.db.prepare(text);
      this.statements.set(text, st);
    }
    return st;
  }

  /** Counts a change of who may see what: the key of access caches. */
  bumpAccessVersion(): void {
    this.sql(
      "INSERT INTO meta (key, value) VALUES ('access_version', '1') ON CONFLICT(key) DO UPDATE SET value = CAST(value AS INTEGER) + 1",
    ).run();
  }
}
