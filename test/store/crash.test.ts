import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SqliteStore } from '../../src/store/sqlite/store.js';
import { ROOT, tempDir } from '../helpers.js';

const dir = tempDir();
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** Runs the save loop and SIGKILLs it `afterMs` after it is ready; returns its output. */
function runAndKill(afterMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(ROOT, 'test', 'fixtures', 'save-loop.mjs'), dir, '20000'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => {
      out += String(d);
      if (out.includes('ready\n') && !(child as { armed?: boolean }).armed) {
        (child as { armed?: boolean }).armed = true;
        setTimeout(() => child.kill('SIGKILL'), afterMs);
      }
    });
    child.stderr.on('data', (d) => (err += String(d)));
    child.on('exit', (code, signal) =>
      signal === 'SIGKILL' ? resolve(out) : reject(new Error(`save loop exited ${code}: ${err}`)),
    );
  });
}

describe('killed while saving the index', () => {
  it('always reopens: the previous index loads, or the store rebuilds it; vectors and windows agree', async () => {
    let midSave = 0;
    for (const afterMs of [37, 121, 263, 409, 587, 733]) {
      const out = await runAndKill(afterMs);
      const lines = out.trim().split('\n');
      if (lines.at(-1)!.startsWith('saving')) midSave++;
      const store = SqliteStore.open({
        dataDir: dir,
        model: 'crash/fp32',
        dimension: 64,
        hnsw: { m: 16, efConstruction: 64, efSearch: 32 },
      });
      try {
        expect(await store.index.size()).toBe((await store.documents.counts()).windows);
        expect((await store.documents.counts()).windows).toBe(20000);
        // a leftover temporary file never replaces the index
        expect(store.index.rebuiltBecause ?? 'loaded').not.toMatch(/unreadable/);
        const hit = (await store.index.search((await store.vectors.windowsOfChunks([1]))[0]!.vector, 1))[0]!;
        expect(hit.score).toBeCloseTo(1, 4);
      } finally {
        store.db.close();
      }
    }
    // the kills did land inside saves, so the test exercised what it claims
    expect(midSave).toBeGreaterThan(0);
    // and what killed saves left behind was cleaned up on open
    expect(fs.readdirSync(dir).filter((f) => f.includes('.tmp-'))).toEqual([]);
  }, 120_000);
});
