import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqliteStore } from '../../src/store/sqlite/store.js';
import { ROOT, tempDir } from '../helpers.js';

const dir = tempDir();
const corpus = path.join(dir, 'corpus');
const DOCS = 40;

beforeAll(() => {
  fs.mkdirSync(corpus);
  for (let i = 0; i < DOCS; i++) {
    const sections = Array.from(
      { length: 4 },
      (_, s) =>
        `## Section ${s}\n\n${`Unit ${i}-${s} runs at ${i + s} V and reports every ${s + 1} minutes to station ${i}. `.repeat(12)}\n`,
    ).join('\n');
    fs.writeFileSync(path.join(corpus, `doc${String(i).padStart(3, '0')}.md`), `# Document ${i}\n\n${sections}`);
  }
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** Documents committed so far (a concurrent reader: SQLite is in WAL mode). */
function committed(dataDir: string): number {
  const file = path.join(dataDir, 'ragask.db');
  if (!fs.existsSync(file)) return 0;
  try {
    const db = new Database(file, { readonly: true, fileMustExist: true });
    try {
      return (db.prepare('SELECT count(*) AS n FROM documents').get() as { n: number }).n;
    } finally {
      db.close();
    }
  } catch {
    return 0;
  }
}

/**
 * Runs `ragask ingest`; with `killAfterMs`, SIGKILLs it that long after it has committed more
 * documents than were there when it started (so each kill lands in the middle of real work).
 */
function ingestProcess(dataDir: string, killAfterMs: number | null): Promise<{ killed: boolean; out: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(ROOT, 'bin', 'ragask.js'), 'ingest', corpus], {
      env: {
        ...process.env,
        RAGASK_DATA_DIR: dataDir,
        RAGASK_MODELS_DIR: path.join(ROOT, 'models'),
        RAGASK_THREADS: '1',
        RAGASK_LOG_LEVEL: 'warn',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d) => (out += String(d)));
    child.stderr.on('data', (d) => (out += String(d)));
    const before = committed(dataDir);
    let timer: NodeJS.Timeout | null = null;
    const poll =
      killAfterMs === null
        ? null
        : setInterval(() => {
            if (!timer && committed(dataDir) > before) timer = setTimeout(() => child.kill('SIGKILL'), killAfterMs);
          }, 50);
    child.on('exit', (code, signal) => {
      if (poll) clearInterval(poll);
      if (timer) clearTimeout(timer);
      if (signal === 'SIGKILL') resolve({ killed: true, out });
      else if (code === 0) resolve({ killed: false, out });
      else reject(new Error(`ingest exited ${code}: ${out}`));
    });
  });
}

/** Chunks per document source, from a store file. */
function chunksPerDoc(dbFile: string): Map<string, number> {
  const db = new Database(dbFile, { readonly: true });
  try {
    const rows = db
      .prepare('SELECT d.source, count(c.id) AS n FROM documents d LEFT JOIN chunks c ON c.doc_id = d.id GROUP BY d.id')
      .all() as { source: string; n: number }[];
    return new Map(rows.map((r) => [r.source, r.n]));
  } finally {
    db.close();
  }
}

describe('ingest killed with SIGKILL at random points', () => {
  it('leaves only whole documents, keeps SQLite and HNSW in agreement, and the next run resumes', async () => {
    const reference = path.join(dir, 'reference');
    await ingestProcess(reference, null);
    const full = chunksPerDoc(path.join(reference, 'ragask.db'));
    expect(full.size).toBe(DOCS);

    const data = path.join(dir, 'killed');
    let partials = 0;
    for (const afterMs of [0, 170, 390]) {
      const r = await ingestProcess(data, afterMs);
      if (!r.killed) break;
      const dbFile = path.join(data, 'ragask.db');
      if (!fs.existsSync(dbFile)) continue;
      const db = new Database(dbFile, { readonly: true });
      try {
        expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
        const windowsMissing = (
          db
            .prepare(
              'SELECT count(*) AS n FROM chunks c WHERE NOT EXISTS (SELECT 1 FROM windows w WHERE w.chunk_id = c.id)',
            )
            .get() as { n: number }
        ).n;
        const ftsMissing = (
          db
            .prepare(
              'SELECT count(*) AS n FROM chunks c WHERE NOT EXISTS (SELECT 1 FROM chunks_fts f WHERE f.rowid = c.id)',
            )
            .get() as { n: number }
        ).n;
        expect(windowsMissing).toBe(0);
        expect(ftsMissing).toBe(0);
      } finally {
        db.close();
      }
      // every document visible is whole: as many chunks as a full ingest gives it
      const seen = chunksPerDoc(dbFile);
      for (const [source, n] of seen) expect(n).toBe(full.get(source));
      if (seen.size > 0 && seen.size < DOCS) partials++;
      // and the index, replayed from the log, holds exactly the stored windows
      const store = SqliteStore.open({
        dataDir: data,
        model: 'all-MiniLM-L6-v2/int8',
        dimension: 384,
        hnsw: { m: 16, efConstruction: 200, efSearch: 128 },
      });
      try {
        expect(await store.index.size()).toBe((await store.documents.counts()).windows);
      } finally {
        await store.close();
      }
    }
    expect(partials).toBeGreaterThan(0);
    const last = await ingestProcess(data, null);
    expect(last.out).toMatch(/unchanged/);
    expect(chunksPerDoc(path.join(data, 'ragask.db'))).toEqual(full);
  }, 180_000);
});
