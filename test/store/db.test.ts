import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { SCHEMA_VERSION, migrate, openDatabase } from '../../src/store/sqlite/db.js';
import { MIGRATIONS, getMeta, setMeta } from '../../src/store/sqlite/schema.js';
import { tempDir } from '../helpers.js';

const dirs: string[] = [];
const fresh = () => {
  const d = tempDir();
  dirs.push(d);
  return path.join(d, 'ragask.db');
};
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

describe('SQLite store and migrations', () => {
  it('creates the latest schema in WAL mode', () => {
    const db = openDatabase(fresh());
    expect(db.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    const tables = (
      db.prepare("SELECT name FROM sqlite_master WHERE type IN ('table')").all() as { name: string }[]
    ).map((r) => r.name);
    for (const t of ['documents', 'chunks', 'windows', 'chunks_fts', 'index_log', 'meta', 'query_cache'])
      expect(tables).toContain(t);
    db.close();
  });

  it('upgrades a version-1 store in place, keeping its data', () => {
    const file = fresh();
    const raw = new Database(file);
    raw.exec(MIGRATIONS[0]!.sql);
    raw.pragma('user_version = 1');
    raw
      .prepare(
        "INSERT INTO documents (source, path, title, kind, content_hash, bytes, ingested_at) VALUES ('s', 'p', 'T', 'text', 'h', 1, 'now')",
      )
      .run();
    raw.close();
    const db = openDatabase(file);
    expect(db.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    expect((db.prepare('SELECT title FROM documents').get() as { title: string }).title).toBe('T');
    db.close();
  });

  it('refuses a store from a newer ragask instead of corrupting it', () => {
    const file = fresh();
    const raw = new Database(file);
    raw.pragma(`user_version = ${SCHEMA_VERSION + 1}`);
    raw.close();
    expect(() => openDatabase(file)).toThrow(/newer than this ragask/);
  });

  it('refuses a foreign or corrupt file with one line naming the file and the recovery', () => {
    const file = fresh();
    fs.writeFileSync(file, 'this is not a database at all, just text pretending');
    let message = '';
    try {
      openDatabase(file);
    } catch (e) {
      message = (e as Error).message;
    }
    expect(message).toContain(file);
    expect(message).toMatch(/restore it from a backup|ragask ingest/);
    expect(message).not.toMatch(/\n/);
    // and the file is left as it was
    expect(fs.readFileSync(file, 'utf8')).toBe('this is not a database at all, just text pretending');
  });

  it('keeps meta values', () => {
    const db = openDatabase(fresh());
    setMeta(db, 'k', 'v1');
    setMeta(db, 'k', 'v2');
    expect(getMeta(db, 'k')).toBe('v2');
    expect(migrate(db)).toBe(SCHEMA_VERSION);
    db.close();
  });
});
