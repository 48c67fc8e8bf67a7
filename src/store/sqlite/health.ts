import fs from 'node:fs';
import path from 'node:path';
import { errorMessage } from '../../errors.js';
import type { HnswParams, HealthCheck } from '../types.js';
import { DB_FILE, openDatabase, SCHEMA_VERSION, type DB } from './db.js';
import { HnswIndex, INDEX_FILE } from './hnsw.js';
import { getMeta } from './schema.js';

/**
 * A read-only health check of the embedded store (for `ragask doctor`): SQLite's quick_check, the
 * schema version, rows without parents, the full-text index, the model the windows were embedded
 * with, and whether the HNSW file loads and is in step. Nothing is created, migrated or rebuilt.
 */
export function sqliteHealth(dataDir: string, hnsw: HnswParams, wantModel: string): HealthCheck[] {
  const dbFile = path.join(dataDir, DB_FILE);
  if (!fs.existsSync(dbFile))
    return [{ name: 'store', ok: true, detail: `${dbFile} does not exist yet (it is created by the first ingest)` }];
  let db: DB;
  try {
    db = openDatabase(dbFile, { readonly: true });
  } catch (e) {
    return [{ name: 'store', ok: false, detail: errorMessage(e), fix: REBUILD }];
  }
  try {
    const health = storeHealth(db);
    const model = getMeta(db, 'embedding_model');
    const checks = [storeCheck(dbFile, health)];
    if (model && health.windows > 0 && model !== wantModel)
      checks.push({
        name: 'model ↔ store',
        ok: false,
        detail: `store embedded with ${model}, settings select ${wantModel}`,
        fix: 'run `npx ragask reindex`, or set RAGASK_MODEL / RAGASK_MODEL_VARIANT back',
      });
    const dim = Number(getMeta(db, 'embedding_dimension') ?? 384);
    const idx = HnswIndex.inspect(db, path.join(dataDir, INDEX_FILE), {
      dimension: dim,
      model: model ?? wantModel,
      params: hnsw,
    });
    checks.push(indexCheck(idx, health.windows));
    return checks;
  } finally {
    db.close();
  }
}

const REBUILD =
  'move the file away and re-ingest your sources (`npx ragask ingest <paths>`), or restore it from a backup';

/** The file itself: integrity, schema version, orphans and the full-text index. */
function storeCheck(dbFile: string, health: ReturnType<typeof storeHealth>): HealthCheck {
  const { schemaVersion: version, integrity, orphanChunks, orphanWindows, emptyDocs, ftsGap } = health;
  const problems: string[] = [];
  if (integrity.join() !== 'ok') problems.push(`SQLite quick_check: ${integrity.slice(0, 3).join('; ')}`);
  if (version !== SCHEMA_VERSION)
    problems.push(
      `schema version ${version}, this ragask expects ${SCHEMA_VERSION} (opening it for writing migrates it)`,
    );
  if (orphanChunks + orphanWindows)
    problems.push(`${orphanChunks} chunks and ${orphanWindows} windows without a parent`);
  if (emptyDocs) problems.push(`${emptyDocs} documents without chunks`);
  if (ftsGap) problems.push(`${ftsGap} chunks missing from the full-text index`);
  if (problems.length) return { name: 'store', ok: false, detail: problems.join('; '), fix: REBUILD };
  return {
    name: 'store',
    ok: true,
    detail: `${dbFile}: integrity ok, schema ${version}, ${health.documents} documents, ${health.windows} windows`,
  };
}

/** The HNSW index file against the store's windows. */
function indexCheck(idx: ReturnType<typeof HnswIndex.inspect>, windows: number): HealthCheck {
  if (idx.problem)
    return {
      name: 'index ↔ store',
      ok: windows === 0,
      detail: `${idx.problem}; it is rebuilt from SQLite on the next start`,
      fix: 'nothing to do, or run `npx ragask stats` to rebuild it now',
    };
  if (idx.size + idx.behind < windows && idx.behind === 0)
    return {
      name: 'index ↔ store',
      ok: false,
      detail: `index holds ${idx.size} vectors, store ${windows} windows`,
      fix: 'delete data/index.hnsw*; it is rebuilt from SQLite on the next start',
    };
  return {
    name: 'index ↔ store',
    ok: true,
    detail: `index loads; ${idx.size} vectors${idx.behind ? `, ${idx.behind} store changes to replay on next open` : ', in step with the store'}`,
  };
}

/**
 * A read-only health check of a store's database (for `ragask doctor`, before anything opens it
 * for writing): SQLite's integrity check and schema version, rows without their parent, documents without chunks, chunks missing from the
 * full-text index, and the counts.
 */
function storeHealth(db: DB): {
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
