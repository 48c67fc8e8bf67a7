import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/store/sqlite/db.js';
import { MIGRATIONS } from '../../src/store/sqlite/schema.js';
import { SqliteStore } from '../../src/store/sqlite/store.js';
import type { ChunkInput } from '../../src/store/types.js';
import type { Store } from '../../src/store/interfaces.js';
import { PgStore } from '../../src/store/pg/store.js';
import { chunkInput, tempDir } from '../helpers.js';
import { BACKENDS, freshSchema, skipBackend, type Backend } from '../pg.js';

// Full-text searches whose work is bounded whatever the corpus size: entity links through titles
// and headings, mentions up to a limit, frequencies counted up to a cap (see issue 9, corpus scale).

const dirs: string[] = [];
const schemas: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
  for (const drop of schemas.splice(0)) await drop();
});

const HNSW = { m: 8, efConstruction: 20, efSearch: 20 };

function openSqlite(): SqliteStore {
  const dataDir = tempDir();
  dirs.push(dataDir);
  return SqliteStore.open({ dataDir, model: 'test/4', dimension: 4, hnsw: HNSW });
}

/** An empty store of a backend (PostgreSQL: in a schema of its own). */
async function openStore(backend: Backend): Promise<Store> {
  if (backend === 'sqlite') return openSqlite();
  const { url, drop } = await freshSchema('text');
  schemas.push(drop);
  return PgStore.open({ url, model: 'test/4', dimension: 4, hnsw: HNSW });
}

const chunk = (ord: number, text: string, headingPath: string[] = []): ChunkInput =>
  chunkInput(ord, text, [new Float32Array([1, 0, 0, 0])], headingPath);

async function add(store: Store, title: string, chunks: ChunkInput[]): Promise<number> {
  const [id] = await store.documents.replaceDocuments([
    {
      doc: {
        source: `/d/${title}.md`,
        path: `/d/${title}.md`,
        title,
        kind: 'markdown',
        url: null,
        contentHash: title,
        bytes: 1,
      },
      chunks,
    },
  ]);
  return id!;
}

describe.each(BACKENDS)('bounded full-text search (%s)', (backend) => {
  const it_ = skipBackend(backend) ? it.skip : it;
  it_('finds the chunks an entity titles or heads, best first, apart from those that merely mention it', async () => {
    const store = await openStore(backend);
    const own = await add(store, 'Vantor TS-40', [chunk(0, 'A temperature sensor.')]);
    const headed = await add(store, 'Sensors', [
      chunk(0, 'Intro.'),
      chunk(1, 'Accurate to 0.1 degrees.', ['Vantor TS-40']),
    ]);
    for (let i = 0; i < 30; i++)
      await add(store, `Mission ${i}`, [chunk(0, `Mission ${i} flew with the Vantor TS-40 on board.`)]);
    // two entities in one call, each answered on its own, in the order asked
    const [m, other] = await store.text.entityMentions(
      [
        { terms: ['vantor', 'ts 40'], match: 'all' },
        { terms: ['mission', '3'], match: 'all' },
      ],
      { labelled: 10, mentioned: 5 },
    );
    expect(other!.labelled.map((h) => h.title)).toEqual(['Mission 3']);
    expect(m!.labelled.map((h) => h.docId).sort()).toEqual([own, headed].sort());
    // the document titled exactly by the entity ranks first among those its labels name
    expect(m!.labelled[0]!.docId).toBe(own);
    expect(m!.labelled.find((h) => h.docId === headed)!.headingPath).toEqual(['Vantor TS-40']);
    // mentions are read up to their limit, and never repeat a labelled chunk
    expect(m!.mentioned).toHaveLength(5);
    expect(m!.mentioned.some((h) => h.docId === own || h.docId === headed)).toBe(false);
    // an access filter applies inside both searches
    const only = new Set([headed]);
    const [filtered] = await store.text.entityMentions(
      [{ terms: ['vantor', 'ts 40'], match: 'all' }],
      { labelled: 10, mentioned: 5 },
      { only },
    );
    expect([...filtered!.labelled, ...filtered!.mentioned].every((h) => h.docId === headed)).toBe(true);
    await store.close();
  });

  it_('counts matches up to a cap, and counts afresh once the store changes', async () => {
    const store = await openStore(backend);
    for (let i = 0; i < 12; i++)
      await add(store, `Doc ${i}`, [chunk(0, `The radio uses the 868 MHz band, note ${i}.`)]);
    expect((await store.text.countTextMatches([{ terms: ['868'], match: 'any' }], 100))[0]).toBe(12);
    expect((await store.text.countTextMatches([{ terms: ['868'], match: 'any' }], 5))[0]).toBe(5);
    // several queries at once, each counted as alone: a word, a phrase in and out of order, all of two words
    expect(
      await store.text.countTextMatches(
        [
          { terms: ['868'], match: 'any' },
          { terms: ['868 mhz'], match: 'any' },
          { terms: ['mhz 868'], match: 'any' },
          { terms: ['radio', 'note'], match: 'all' },
          { terms: ['satellite'], match: 'any' },
        ],
        100,
      ),
    ).toEqual([12, 12, 0, 12, 0]);
    await add(store, 'Doc 12', [chunk(0, 'Another 868 MHz radio.')]);
    expect((await store.text.countTextMatches([{ terms: ['868'], match: 'any' }], 100))[0]).toBe(13);
    expect(
      (await store.text.countTextMatches([{ terms: ['868'], match: 'any' }], 100, { only: new Set([1, 2]) }))[0],
    ).toBe(2);
    await store.close();
  });

  it_('keeps titles and headings searchable through document removal and replacement', async () => {
    const store = await openStore(backend);
    const id = await add(store, 'Heron buoy', [chunk(0, 'Moored at the harbour.')]);
    expect(
      (
        await store.text.entityMentions([{ terms: ['heron'], match: 'all' }], { labelled: 5, mentioned: 5 })
      )[0]!.labelled.map((h) => h.docId),
    ).toEqual([id]);
    await store.documents.deleteDocument(id);
    expect(
      (await store.text.entityMentions([{ terms: ['heron'], match: 'all' }], { labelled: 5, mentioned: 5 }))[0]!
        .labelled,
    ).toEqual([]);
    await store.close();
  });
});

describe('the SQLite store', () => {
  it('gives a version-3 store its title and heading index when it is opened', () => {
    const dataDir = tempDir();
    dirs.push(dataDir);
    const file = path.join(dataDir, 'ragask.db');
    const raw = new Database(file);
    for (const m of MIGRATIONS.filter((x) => x.version <= 3)) raw.exec(m.sql);
    raw.pragma('user_version = 3');
    raw
      .prepare(
        "INSERT INTO documents (id, source, path, title, kind, content_hash, bytes, ingested_at) VALUES (1, 's', 'p', 'Project Falcon', 'markdown', 'h', 1, 'now')",
      )
      .run();
    raw
      .prepare(
        "INSERT INTO chunks (id, doc_id, ord, kind, heading_path, page, text, token_count, density, entities) VALUES (7, 1, 0, 'paragraph', '[\"Team\"]', NULL, 'Lead: Mirela', 3, 0, '[]')",
      )
      .run();
    raw
      .prepare(
        "INSERT INTO chunks_fts (rowid, title, headings, body) VALUES (7, 'Project Falcon', 'Team', 'Lead: Mirela')",
      )
      .run();
    raw.close();
    const db = openDatabase(file);
    expect(db.prepare('SELECT rowid FROM chunk_labels_fts WHERE chunk_labels_fts MATCH \'"falcon"\'').all()).toEqual([
      { rowid: 7 },
    ]);
    db.close();
  });
});
