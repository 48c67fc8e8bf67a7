import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { UserError } from '../../errors.js';
import { MIGRATIONS } from './schema.js';

export type DB = Database.Database;

/** The embedded store's database file, in the data folder. */
export const DB_FILE = 'ragask.db';

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
