import fs from 'node:fs';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { UserError } from '../../src/errors.js';
import { parseScope } from '../../src/store/access.js';
import { pgStoreHealth } from '../../src/store/pg/health.js';
import { openPool } from '../../src/store/pg/db.js';
import { PgStore } from '../../src/store/pg/store.js';
import { SqliteStore } from '../../src/store/sqlite/store.js';
import type { ChunkInput } from '../../src/store/types.js';
import type { Store } from '../../src/store/interfaces.js';
import { chunkInput as chunk, tempDir } from '../helpers.js';
import { freshSchema, PG_URL } from '../pg.js';

// The PostgreSQL backend's own guarantees: the access filter inside the k-NN query, BM25 as FTS5
// computes it, whole-document transactions, writes seen by every replica at once, and migrations
// that replicas starting together apply once. The behaviour both backends share is tested on both
// (text-search, slack-state, replicas).

const HNSW = { m: 8, efConstruction: 40, efSearch: 20 };
const DIM = 8;
const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function pgStore(schemaUrl?: string): Promise<{ store: PgStore; url: string }> {
  let url = schemaUrl;
  if (!url) {
    const s = await freshSchema('pgstore');
    cleanups.push(s.drop);
    url = s.url;
  }
  const store = await PgStore.open({ url, model: 'test/8', dimension: DIM, hnsw: HNSW });
  cleanups.push(() => store.close());
  return { store, url };
}

let seed = 11;
const rand = () => {
  seed = (seed * 16807) % 2147483647;
  return (seed / 2147483647) * 2 - 1;
};
function unit(v: number[]): Float32Array {
  const n = Math.hypot(...v);
  return Float32Array.from(v.map((x) => x / n));
}
const randomVector = () => unit(Array.from({ length: DIM }, rand));

function doc(name: string, chunks: ChunkInput[]) {
  return {
    doc: {
      source: `/d/${name}`,
      path: `/d/${name}`,
      title: name,
      kind: 'markdown' as const,
      url: null,
      contentHash: name,
      bytes: 1,
    },
    chunks,
  };
}
describe.skipIf(!PG_URL)('the PostgreSQL store', () => {
  it('plans every named statement for its own values, on every connection, beside the URL’s own settings', async () => {
    const pool = await openPool(`${PG_URL!}${PG_URL!.includes('?') ? '&' : '?'}options=-c%20statement_timeout%3D4321`);
    // three held at once: three connections of the pool, each set up as it connected
    const clients = await Promise.all([1, 2, 3].map(() => pool.connect()));
    try {
      const shown = await Promise.all(
        clients.map(async (c) => [
          (await c.query<{ plan_cache_mode: string }>('SHOW plan_cache_mode')).rows[0]!.plan_cache_mode,
          (await c.query<{ statement_timeout: string }>('SHOW statement_timeout')).rows[0]!.statement_timeout,
        ]),
      );
      expect(shown).toEqual([
        ['force_custom_plan', '4321ms'],
        ['force_custom_plan', '4321ms'],
        ['force_custom_plan', '4321ms'],
      ]);
    } finally {
      for (const c of clients) c.release();
      await pool.end();
    }
  });

  it('applies the access filter inside the k-NN search: k results of the allowed documents, the exact nearest ones', async () => {
    const { store } = await pgStore();
    const query = randomVector();
    // 30 documents near the query, and one far from it: unfiltered, the far one never makes the top 10
    const near = Array.from({ length: 30 }, (_, d) =>
      doc(`near-${d}`, [
        chunk(
          0,
          `near ${d}`,
          Array.from({ length: 10 }, () => unit([...query].map((x) => x + 0.3 * rand()))),
        ),
      ]),
    );
    const farVectors = Array.from({ length: 12 }, () => unit([...query].map((x) => -x + 0.5 * rand())));
    const ids = await store.documents.replaceDocuments([...near, doc('far', [chunk(0, 'far away', farVectors)])]);
    const farId = ids.at(-1)!;
    await store.caches.syncIndex();
    const unfiltered = await store.index.search(query, 10);
    expect(unfiltered).toHaveLength(10);
    // more than the store's efSearch (20): the connection's candidate list grows to k, then back
    expect(await store.index.search(query, 60)).toHaveLength(60);
    expect((await store.index.search(query, 10)).map((h) => h.windowId)).toEqual(unfiltered.map((h) => h.windowId));
    const farWindows = new Set(
      (await store.vectors.windowsOfChunks(await store.documents.chunkIdsOfDocument(farId))).map((w) => w.id),
    );
    expect(unfiltered.some((h) => farWindows.has(h.windowId))).toBe(false);
    // filtered to the far document: the graph walk alone would find none of its windows among its
    // candidates; the search still gives k of them, nearest first, exactly as brute force orders them
    const filtered = await store.index.search(query, 10, { only: new Set([farId]) });
    expect(filtered).toHaveLength(10);
    expect(filtered.every((h) => farWindows.has(h.windowId))).toBe(true);
    const exact = farVectors
      .map((v, i) => ({ i, s: v.reduce((a, x, j) => a + x * query[j]!, 0) }))
      .sort((a, b) => b.s - a.s)
      .slice(0, 10);
    expect(filtered.map((h) => h.score)).toEqual(exact.map((e) => expect.closeTo(e.s, 4)));
    // nothing allowed, nothing found
    expect(await store.index.search(query, 10, { only: new Set() })).toEqual([]);
  });

  it('ranks full-text matches with the same BM25 scores as FTS5', async () => {
    const { store } = await pgStore();
    const dataDir = tempDir();
    const sqlite = SqliteStore.open({ dataDir, model: 'test/8', dimension: DIM, hnsw: HNSW });
    cleanups.push(async () => {
      await sqlite.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    });
    const texts = [
      ['Heron buoy', 'The buoy transmits readings through the radio to a gateway on the shore.', ['Radio']],
      ['Falcon airframe', 'The airframe carries a radio and a camera; the radio range is 15 km.', ['Payload']],
      ['Gateway', 'The gateway forwards readings over the mobile network to the server.', []],
      ['Radio guide', 'Radio radio radio: choosing a radio for a buoy, a drone or a gateway.', ['Radio', 'Choosing']],
      ['Camera', 'A camera with a 12 MP sensor and a wide lens.', []],
      ['Server', 'The server stores readings and sends alerts when a buoy goes quiet.', ['Alerts']],
    ] as const;
    const batch = texts.map(([title, text, headings], i) =>
      doc(title, [
        chunk(0, text, [randomVector()], [...headings]),
        chunk(1, `Note ${i} on ${title.toLowerCase()}.`, [randomVector()]),
      ]),
    );
    await store.documents.replaceDocuments(batch);
    await sqlite.documents.replaceDocuments(batch);
    await store.caches.syncIndex();
    for (const [query, weights] of [
      [{ terms: ['radio'], match: 'any' }, [2, 1, 1]],
      [{ terms: ['buoy', 'gateway', 'readings'], match: 'any' }, [2, 1, 1]],
      [{ terms: ['radio', 'buoy'], match: 'all' }, [4, 2, 1]],
      [{ terms: ['server', 'camera', 'radio', 'alerts'], match: 'any' }, [1, 1, 1]],
      // a phrase counts where its words stand together: "radio range" once, not as often as "radio"
      [{ terms: ['radio range', 'buoy'], match: 'any' }, [2, 1, 1]],
    ] as const) {
      const fromPg = await store.text.searchText(query, 20, [...weights]);
      const fromFts5 = await sqlite.text.searchText(query, 20, [...weights]);
      expect(fromPg.length, JSON.stringify(query)).toBeGreaterThan(0);
      // chunk ids agree between the two fresh stores (both number from 1 in write order)
      expect(fromPg.map((r) => r.chunkId).sort(), JSON.stringify(query)).toEqual(fromFts5.map((r) => r.chunkId).sort());
      for (const r of fromPg)
        expect(r.score, `${JSON.stringify(query)} chunk ${r.chunkId}`).toBeCloseTo(
          fromFts5.find((x) => x.chunkId === r.chunkId)!.score,
          6,
        );
    }
  });

  it('keeps the postings BM25 reads with their documents: replaced, deleted, filtered, and filled on upgrade', async () => {
    const { store, url } = await pgStore();
    const [a, b] = await store.documents.replaceDocuments([
      doc('a', [chunk(0, 'The heron buoy sends readings by radio.', [randomVector()])]),
      doc('b', [chunk(0, 'The falcon drone carries a radio.', [randomVector()])]),
    ]);
    const found = async (terms: string[], docIds: ReadonlySet<number> | null = null) =>
      (await store.text.searchText({ terms, match: 'any' }, 10, [2, 1, 1], docIds && { only: docIds })).map(
        (r) => r.chunkId,
      );
    const [aChunk] = await store.documents.chunkIdsOfDocument(a!);
    const [bChunk] = await store.documents.chunkIdsOfDocument(b!);
    expect((await found(['radio'])).sort()).toEqual([aChunk, bChunk].sort());
    // the document's documents filter is applied inside the search
    expect(await found(['radio'], new Set([b!]))).toEqual([bChunk]);
    // a new version of a document: its new words are found, its old ones are not
    const [a2] = await store.documents.replaceDocuments([
      doc('a', [chunk(0, 'The heron buoy reports by satellite.', [randomVector()])]),
    ]);
    const [a2Chunk] = await store.documents.chunkIdsOfDocument(a2!);
    expect(await found(['radio'])).toEqual([bChunk]);
    expect(await found(['satellite'])).toEqual([a2Chunk]);
    await store.documents.deleteDocument(b!);
    expect(await found(['radio', 'drone'])).toEqual([]);
    // a store made before the postings (schema 2) gets them from its chunks when it is next opened
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      await client.query("DROP TABLE postings; UPDATE ragask_schema SET version = 2 WHERE component = 'store'");
    } finally {
      await client.end();
    }
    const { store: upgraded } = await pgStore(url);
    expect((await upgraded.text.searchText({ terms: ['satellite'], match: 'any' }, 10)).map((r) => r.chunkId)).toEqual([
      a2Chunk,
    ]);
    // a store whose postings have the first shape (schema 3: no per-column counts) has them rebuilt
    await upgraded.pool.query(`DROP TABLE postings;
      CREATE TABLE postings (lexeme TEXT NOT NULL, chunk_id BIGINT NOT NULL, doc_id BIGINT NOT NULL,
        fts_len INTEGER NOT NULL, positions SMALLINT[] NOT NULL, weights TEXT[] NOT NULL, PRIMARY KEY (lexeme, chunk_id));
      UPDATE ragask_schema SET version = 3 WHERE component = 'store'`);
    const { store: rebuilt } = await pgStore(url);
    expect((await rebuilt.text.searchText({ terms: ['satellite'], match: 'any' }, 10)).map((r) => r.chunkId)).toEqual([
      a2Chunk,
    ]);
  });

  it('writes a batch of documents as the embedded store does: ids in order, chunks in order, windows under their own chunk, scopes kept', async () => {
    const { store } = await pgStore();
    const dir = tempDir();
    const sqlite = SqliteStore.open({ dataDir: dir, model: 'test/8', dimension: DIM, hnsw: HNSW });
    cleanups.push(async () => {
      await sqlite.close();
      fs.rmSync(dir, { recursive: true, force: true });
    });
    const channelScope = parseScope('channel:C0123ABCD');
    const first = (s: Store) =>
      s.documents.replaceDocuments([doc('kept', [chunk(0, 'kept first version', [randomVector()])])], channelScope);
    const vectors = Array.from({ length: 9 }, randomVector);
    const batch = [
      doc('one', [chunk(0, 'one zero', [vectors[0]!]), chunk(1, 'one one', [vectors[1]!, vectors[2]!])]),
      doc('kept', [chunk(0, 'kept second version', [vectors[3]!])]),
      doc('empty', []),
      doc('two', [
        chunk(0, 'two zero', [vectors[4]!]),
        chunk(1, 'two one', [vectors[5]!]),
        chunk(2, 'two two', [vectors[6]!]),
      ]),
      // the same source again in one batch: its later version is the one kept, as in a later batch
      doc('one', [chunk(0, 'one again', [vectors[7]!, vectors[8]!])]),
    ];
    const seen = async (s: Store) => {
      await first(s);
      const ids = await s.documents.replaceDocuments(batch);
      await s.caches.syncIndex();
      const docs = [];
      for (const [i, id] of ids.entries()) {
        const chunkIds = await s.documents.chunkIdsOfDocument(id);
        const rows = await s.documents.getChunks(chunkIds);
        const windows = await s.vectors.windowsOfChunks(chunkIds);
        docs.push({
          at: i,
          doc:
            (await s.documents.getDocumentBySource(batch[i]!.doc.source))?.id === id
              ? batch[i]!.doc.source
              : 'replaced',
          scope: (await s.documents.getDocumentBySource(batch[i]!.doc.source))?.scope,
          // a document's chunks have consecutive ids in its order (the table context relies on it)
          consecutive: chunkIds.every((c, k) => k === 0 || c === chunkIds[k - 1]! + 1),
          chunks: chunkIds.map((c) => rows.get(c)!.text),
          windows: windows.map((w) => rows.get(w.chunkId)!.text).sort(),
        });
      }
      const nearest = [];
      // each stored window's vector is found under its own chunk (the first three were replaced)
      for (const v of vectors.slice(3)) {
        const [hit] = await s.index.search(v, 1);
        nearest.push(
          rowsText(await s.documents.getChunks([...(await s.vectors.windowChunks([hit!.windowId])).values()])),
        );
      }
      return {
        distinct: new Set(ids).size,
        increasing: ids.slice(0, 4).every((x, i) => i === 0 || x > ids[i - 1]!),
        docs,
        nearest,
      };
    };
    const rowsText = (m: Map<number, { text: string }>) => [...m.values()].map((r) => r.text).join();
    const onPg = await seen(store);
    const onSqlite = await seen(sqlite);
    expect(onPg).toEqual(onSqlite);
    expect(onPg.increasing).toBe(true);
    expect(onPg.docs.find((d) => d.doc === '/d/kept')!.scope).toEqual(channelScope);
    expect(onPg.docs.every((d) => d.consecutive)).toBe(true);
    expect(onPg.docs[4]!.chunks).toEqual(['one again']);
    expect(onPg.docs[0]!.doc).toBe('replaced');
    expect(onPg.nearest).toEqual(['kept second version', 'two zero', 'two one', 'two two', 'one again', 'one again']);
  });

  it('builds its vector index once over a first load, and again at the next open if the load died', async () => {
    const { store, url } = await pgStore();
    const index = async () =>
      (await store.pool.query<{ at: string | null }>("SELECT to_regclass('windows_embedding') AS at")).rows[0]!.at;
    const nearest = async (v: Float32Array) => (await store.index.search(v, 3)).map((h) => h.windowId);
    expect(await index()).not.toBeNull();
    // an empty store sets its index aside; what is written meanwhile is still found (exactly)
    expect(await store.vectors.beginBulkLoad()).toBe(true);
    expect(await index()).toBeNull();
    const vectors = Array.from({ length: 30 }, () => randomVector());
    await store.documents.replaceDocuments(vectors.map((v, i) => doc(`bulk${i}`, [chunk(0, `bulk text ${i}`, [v])])));
    const exact = await nearest(vectors[7]!);
    expect(exact).toHaveLength(3);
    await store.vectors.finishBulkLoad();
    expect(await index()).not.toBeNull();
    expect(await nearest(vectors[7]!)).toEqual(exact);
    // a store that holds windows keeps its index: rows are inserted into it as they come
    expect(await store.vectors.beginBulkLoad()).toBe(false);
    expect(await index()).not.toBeNull();
    // a load that died before its end: the next open builds the index over what is there
    await store.pool.query('DROP INDEX windows_embedding');
    // ragask doctor says so, and how it mends
    const missing = (await pgStoreHealth(url, 'test/8')).find((c) => c.name === 'vector index');
    expect(missing?.ok).toBe(false);
    const { store: reopened } = await pgStore(url);
    expect((await pgStoreHealth(url, 'test/8')).find((c) => c.name === 'vector index')).toBeUndefined();
    expect(
      (await reopened.pool.query<{ at: string | null }>("SELECT to_regclass('windows_embedding') AS at")).rows[0]!.at,
    ).not.toBeNull();
    expect((await reopened.stats()).windows).toBe(30);
  });

  it('re-embeds windows in place: the new vectors are what the k-NN finds, and a vector of another length is refused', async () => {
    const { store } = await pgStore();
    await store.documents.replaceDocuments([
      doc('one', [chunk(0, 'one', [randomVector(), randomVector(), randomVector()])]),
    ]);
    const windows = await store.vectors.windowsOfChunks(
      await store.documents.chunkIdsOfDocument((await store.documents.listDocuments())[0]!.id),
    );
    const fresh = windows.map(() => randomVector());
    await store.vectors.setVectors(windows.map((w, i) => ({ id: w.id, vector: fresh[i]! })));
    for (const [i, w] of windows.entries()) {
      const [hit] = await store.index.search(fresh[i]!, 1);
      expect(hit!.windowId).toBe(w.id);
      expect(hit!.score).toBeCloseTo(1, 5);
    }
    await expect(store.vectors.setVectors([{ id: windows[0]!.id, vector: new Float32Array(DIM + 1) }])).rejects.toThrow(
      /dimensions/,
    );
  });

  it('writes a batch of documents in one transaction: a failure stores none of it and keeps what was there', async () => {
    const { store } = await pgStore();
    const [kept] = await store.documents.replaceDocuments([doc('kept', [chunk(0, 'kept text', [randomVector()])])]);
    const bad = chunk(0, 'bad vector', [new Float32Array(DIM + 1).fill(0.1)]);
    await expect(
      store.documents.replaceDocuments([doc('first', [chunk(0, 'first text', [randomVector()])]), doc('kept', [bad])]),
    ).rejects.toThrow();
    expect(await store.documents.getDocumentBySource('/d/first')).toBeUndefined();
    expect((await store.documents.getDocumentBySource('/d/kept'))?.id).toBe(kept);
    expect(await store.documents.counts()).toEqual({ documents: 1, chunks: 1, windows: 1 });
  });

  it('shows a write by one replica to another at its next query: documents, text counts and scopes', async () => {
    const { store: a, url } = await pgStore();
    const { store: b } = await pgStore(url);
    await b.caches.syncIndex();
    const before = b.index.appliedSeq;
    expect((await b.text.countTextMatches([{ terms: ['kestrel'], match: 'any' }], 100))[0]).toBe(0);
    const [id] = await a.documents.replaceDocuments([
      doc('kestrel', [chunk(0, 'The Kestrel radio uses channel 42.', [randomVector()])]),
    ]);
    expect(await b.caches.syncIndex()).toBeGreaterThan(0);
    expect(b.index.appliedSeq).toBeGreaterThan(before);
    expect((await b.text.countTextMatches([{ terms: ['kestrel'], match: 'any' }], 100))[0]).toBe(1);
    const version = await b.access.accessVersion();
    await a.access.setScope([id!], parseScope('channel:COTHER'));
    expect(await b.access.accessVersion()).toBeGreaterThan(version);
    expect((await b.access.scopes()).get(id!)).toEqual(parseScope('channel:COTHER'));
  });

  it('migrates a new database once when replicas open it together, and refuses a newer schema', async () => {
    const { url, drop } = await freshSchema('migrate');
    cleanups.push(drop);
    const opened = await Promise.all(
      [0, 1, 2].map(() => PgStore.open({ url, model: 'test/8', dimension: DIM, hnsw: HNSW })),
    );
    for (const s of opened) cleanups.push(() => s.close());
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      // one row, at the last migration (5: each chunk's entry), however many replicas raced to apply them
      expect((await client.query("SELECT version FROM ragask_schema WHERE component = 'store'")).rows).toEqual([
        { version: 6 },
      ]);
      await client.query("UPDATE ragask_schema SET version = 99 WHERE component = 'store'");
    } finally {
      await client.end();
    }
    const refused = await PgStore.open({ url, model: 'test/8', dimension: DIM, hnsw: HNSW }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(UserError);
    expect((refused as UserError).message).toMatch(/schema version 99, newer than this ragask/);
  });

  it('refuses a database embedded with another model, naming the command that re-embeds it', async () => {
    const { store, url } = await pgStore();
    await store.documents.replaceDocuments([doc('one', [chunk(0, 'one', [randomVector()])])]);
    const refused = await PgStore.open({ url, model: 'other/8', dimension: DIM, hnsw: HNSW }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(UserError);
    expect((refused as UserError).message).toMatch(/was embedded with test\/8.*ragask reindex/);
  });

  it('names the setting when the database cannot be reached', async () => {
    const refused = await PgStore.open({
      url: 'postgres://nobody@127.0.0.1:1/none',
      model: 'test/8',
      dimension: DIM,
      hnsw: HNSW,
    }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(UserError);
    expect((refused as UserError).message).toMatch(
      /^RAGASK_DATABASE_URL \(postgres:\/\/nobody@127\.0\.0\.1:1\/none\): cannot connect/,
    );
  });
});

// a type-level check that the backend is a Store like any other
const _isStore: (s: PgStore) => Store = (s) => s;
void _isStore;
