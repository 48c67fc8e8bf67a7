import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { normalize } from '../../src/models/encoder.js';
import { sqliteHealth } from '../../src/store/sqlite/health.js';
import { SqliteStore } from '../../src/store/sqlite/store.js';
import type { ChunkInput } from '../../src/store/types.js';
import type { Store } from '../../src/store/interfaces.js';
import { tempDir } from '../helpers.js';

const params = { m: 16, efConstruction: 100, efSearch: 64 };
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

function vec(seed: number): Float32Array {
  const v = new Float32Array(8);
  for (let i = 0; i < 8; i++) v[i] = Math.sin(seed * 7.3 + i * 1.7);
  return normalize(v);
}

function chunk(ord: number, seeds: number[]): ChunkInput {
  return {
    ord,
    kind: 'paragraph',
    headingPath: [],
    page: null,
    text: `chunk ${ord}`,
    tokenCount: 2,
    density: 0,
    entities: [],
    entry: null,
    windows: seeds.map((s, i) => ({ ord: i, charStart: 0, charEnd: 7, tokenCount: 2, vector: vec(s) })),
  };
}

function open(dir: string): SqliteStore {
  return SqliteStore.open({ dataDir: dir, model: 'test-model/fp32', dimension: 8, hnsw: params });
}

async function addDoc(store: Store, name: string, seeds: number[]): Promise<number> {
  const [id] = await store.documents.replaceDocuments([
    {
      doc: { source: name, path: name, title: name, kind: 'text', url: null, contentHash: name, bytes: 1 },
      chunks: [chunk(0, seeds)],
    },
  ]);
  return id!;
}

describe('HNSW index beside SQLite', () => {
  it('finds the stored vectors and persists them atomically', async () => {
    const dir = tempDir();
    dirs.push(dir);
    const store = open(dir);
    await addDoc(store, 'a', [1, 2, 3]);
    await store.caches.syncIndex();
    const hit = (await store.index.search(vec(2), 1))[0]!;
    expect(hit.score).toBeCloseTo(1, 5);
    await store.close();
    expect(fs.existsSync(path.join(dir, 'index.hnsw'))).toBe(true);
    const again = open(dir);
    expect(again.index.rebuiltBecause).toBeNull();
    expect(await again.index.size()).toBe(3);
    await again.close();
  });

  it('replays writes it did not save (a crash after the SQLite commit) from the index log', async () => {
    const dir = tempDir();
    dirs.push(dir);
    const store = open(dir);
    await addDoc(store, 'a', [1, 2]);
    await store.close();
    // a second process adds a document and dies before saving the index
    const writer = open(dir);
    await addDoc(writer, 'b', [10, 11, 12]);
    writer.db.close();
    const reader = open(dir);
    expect(reader.index.rebuiltBecause).toBeNull();
    expect(await reader.index.size()).toBe(5);
    expect((await reader.index.search(vec(11), 1))[0]!.score).toBeCloseTo(1, 5);
    await reader.close();
  });

  it('never returns a window deleted in SQLite', async () => {
    const dir = tempDir();
    dirs.push(dir);
    const store = open(dir);
    const id = await addDoc(store, 'a', [1]);
    await addDoc(store, 'b', [50]);
    await store.caches.syncIndex();
    await store.documents.deleteDocument(id);
    await store.caches.syncIndex();
    const ids = (await store.index.search(vec(1), 5)).map((h) => h.windowId);
    expect((await store.vectors.windowChunks(ids)).size).toBe(ids.length);
    expect(await store.index.size()).toBe(1);
    await store.close();
  });

  it.each([
    ['missing', (dir: string) => fs.rmSync(path.join(dir, 'index.hnsw'))],
    ['corrupt', (dir: string) => fs.writeFileSync(path.join(dir, 'index.hnsw'), 'garbage')],
    [
      'torn (index newer than its sidecar)',
      (dir: string) => fs.appendFileSync(path.join(dir, 'index.hnsw'), Buffer.alloc(16)),
    ],
    ['without sidecar', (dir: string) => fs.rmSync(path.join(dir, 'index.hnsw.meta.json'))],
  ])('rebuilds a %s index from the vectors in SQLite', async (_name, damage) => {
    const dir = tempDir();
    dirs.push(dir);
    const store = open(dir);
    await addDoc(store, 'a', [1, 2, 3, 4]);
    await store.close();
    damage(dir);
    const again = open(dir);
    expect(again.index.rebuiltBecause).not.toBeNull();
    expect(await again.index.size()).toBe(4);
    expect((await again.index.search(vec(3), 1))[0]!.score).toBeCloseTo(1, 5);
    await again.close();
  });

  it('records the saved file in its sidecar, and the health check still hashes a file changed in place', async () => {
    const dir = tempDir();
    dirs.push(dir);
    const store = open(dir);
    await addDoc(store, 'a', [1, 2, 3, 4]);
    await store.close();
    const file = path.join(dir, 'index.hnsw');
    const meta = JSON.parse(fs.readFileSync(`${file}.meta.json`, 'utf8')) as { saved: { size: number; ino: string } };
    const st = fs.statSync(file, { bigint: true });
    expect(meta.saved.size).toBe(Number(st.size));
    expect(meta.saved.ino).toBe(String(st.ino));
    expect(sqliteHealth(dir, params, 'test-model/fp32').find((c) => c.name.startsWith('index'))?.ok).toBe(true);
    // one byte flipped in place: same inode, same size
    const fd = fs.openSync(file, 'r+');
    const last = Buffer.alloc(1);
    fs.readSync(fd, last, 0, 1, Number(st.size) - 1);
    fs.writeSync(fd, Buffer.from([last[0]! ^ 0xff]), 0, 1, Number(st.size) - 1);
    fs.closeSync(fd);
    // …and a sidecar that names the file as it is now, so only hashing can see the flip
    const now = fs.statSync(file, { bigint: true });
    const saved = { size: Number(now.size), ino: String(now.ino), mtimeNs: String(now.mtimeNs) };
    fs.writeFileSync(`${file}.meta.json`, JSON.stringify({ ...meta, saved }));
    const check = sqliteHealth(dir, params, 'test-model/fp32').find((c) => c.name.startsWith('index'));
    expect(check?.ok).toBe(false);
    expect(check?.detail).toMatch(/index file does not match its sidecar/);
  });

  it('opens the very file its sidecar saved without hashing it again', async () => {
    const dir = tempDir();
    dirs.push(dir);
    const store = open(dir);
    await addDoc(store, 'a', [1, 2, 3, 4]);
    await store.close();
    const metaFile = path.join(dir, 'index.hnsw.meta.json');
    const meta = JSON.parse(fs.readFileSync(metaFile, 'utf8')) as Record<string, unknown>;
    // a wrong hash is only seen by hashing: an open that trusts the unchanged file loads it as it is
    fs.writeFileSync(metaFile, JSON.stringify({ ...meta, sha256: '0'.repeat(64) }));
    const again = open(dir);
    expect(again.index.rebuiltBecause).toBeNull();
    expect(await again.index.size()).toBe(4);
    await again.close();
  });

  it('hashes a copied index once, then records the copy so the next open does not hash it', async () => {
    const dir = tempDir();
    dirs.push(dir);
    const store = open(dir);
    await addDoc(store, 'a', [1, 2, 3, 4]);
    await store.caches.syncIndex(); // the saved file holds the four points: the copy's open has nothing to catch up
    await store.close();
    const copy = tempDir();
    dirs.push(copy);
    fs.cpSync(dir, copy, { recursive: true });
    const metaFile = path.join(copy, 'index.hnsw.meta.json');
    const before = JSON.parse(fs.readFileSync(metaFile, 'utf8')) as { saved: { ino: string } };
    const first = open(copy);
    expect(first.index.rebuiltBecause).toBeNull();
    await first.close();
    const after = JSON.parse(fs.readFileSync(metaFile, 'utf8')) as Record<string, unknown> & { saved: { ino: string } };
    expect(after.saved.ino).toBe(String(fs.statSync(path.join(copy, 'index.hnsw'), { bigint: true }).ino));
    expect(after.saved.ino).not.toBe(before.saved.ino);
    // a wrong hash now goes unseen: the second open trusted the recorded copy and did not hash it
    fs.writeFileSync(metaFile, JSON.stringify({ ...after, sha256: '0'.repeat(64) }));
    const second = open(copy);
    expect(second.index.rebuiltBecause).toBeNull();
    expect(await second.index.size()).toBe(4);
    await second.close();
  });

  it('shows a rebuild on open as progress to the end, and says why', async () => {
    const dir = tempDir();
    dirs.push(dir);
    const store = open(dir);
    await addDoc(store, 'a', [1, 2, 3]);
    await store.close();
    fs.rmSync(path.join(dir, 'index.hnsw'));
    const seen: string[] = [];
    const progress = {
      start: (total: number, label: string) => seen.push(`start ${total} ${label}`),
      update: (done: number) => seen.push(`update ${done}`),
      stop: () => seen.push('stop'),
    };
    const again = SqliteStore.open({
      dataDir: dir,
      model: 'test-model/fp32',
      dimension: 8,
      hnsw: params,
      indexProgress: progress,
    });
    await again.close();
    expect(seen).toEqual(['start 3 rebuilding the vector index (index file missing)', 'update 3', 'stop']);
    // a sound index opens without a bar
    seen.length = 0;
    const third = SqliteStore.open({
      dataDir: dir,
      model: 'test-model/fp32',
      dimension: 8,
      hnsw: params,
      indexProgress: progress,
    });
    await third.close();
    expect(seen).toEqual([]);
  });

  it('reads the saved index off the calling thread, and rebuilds a file hnswlib cannot read', async () => {
    const dir = tempDir();
    dirs.push(dir);
    const store = open(dir);
    await addDoc(store, 'a', [1, 2, 3, 4, 5]);
    await store.close();
    const opts = { dataDir: dir, model: 'test-model/fp32', dimension: 8, hnsw: params };
    const again = await SqliteStore.openAsync(opts);
    expect(again.index.rebuiltBecause).toBeNull();
    expect(await again.index.size()).toBe(5);
    expect((await again.index.search(vec(3), 1))[0]!.score).toBeCloseTo(1, 5);
    await again.close();
    // garbage that its sidecar vouches for (hash and identity): only reading it can tell
    const file = path.join(dir, 'index.hnsw');
    fs.writeFileSync(file, Buffer.alloc(64, 7));
    const metaFile = `${file}.meta.json`;
    const meta = JSON.parse(fs.readFileSync(metaFile, 'utf8')) as Record<string, unknown>;
    const st = fs.statSync(file, { bigint: true });
    const saved = { size: Number(st.size), ino: String(st.ino), mtimeNs: String(st.mtimeNs) };
    fs.writeFileSync(metaFile, JSON.stringify({ ...meta, saved }));
    const third = await SqliteStore.openAsync(opts);
    expect(third.index.rebuiltBecause).toMatch(/^index file unreadable \(/);
    expect(await third.index.size()).toBe(5);
    await third.close();
  });

  it('refuses vectors of another model with the re-index command', async () => {
    const dir = tempDir();
    dirs.push(dir);
    const store = open(dir);
    await addDoc(store, 'a', [1]);
    await store.close();
    expect(() => SqliteStore.open({ dataDir: dir, model: 'other-model/int8', dimension: 8, hnsw: params })).toThrow(
      /ragask reindex/,
    );
  });
});
