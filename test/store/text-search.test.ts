import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { MIGRATIONS, openDatabase } from '../../src/store/db.js';
import { SqliteStore, type ChunkInput } from '../../src/store/store.js';
import { tempDir } from '../helpers.js';

// Full-text searches whose work is bounded whatever the corpus size: entity links through titles
// and headings, mentions up to a limit, frequencies counted up to a cap (see issue 9, corpus scale).

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

function openStore(): SqliteStore {
  const dataDir = tempDir();
  dirs.push(dataDir);
  return SqliteStore.open({ dataDir, model: 'test/4', dimension: 4, hnsw: { m: 8, efConstruction: 20, efSearch: 20 } });
}

const chunk = (ord: number, text: string, headingPath: string[] = []): ChunkInput => ({
  ord,
  kind: 'paragraph',
  headingPath,
  page: null,
  text,
  tokenCount: text.split(' ').length,
  density: 0,
  entities: [],
  windows: [{ ord: 0, charStart: 0, charEnd: text.length, tokenCount: 4, vector: new Float32Array([1, 0, 0, 0]) }],
});

function add(store: SqliteStore, title: string, chunks: ChunkInput[]): number {
  return store.replaceDocument({ source: `/d/${title}.md`, path: `/d/${title}.md`, title, kind: 'markdown', url: null, contentHash: title, bytes: 1 }, chunks);
}

describe('bounded full-text search', () => {
  it('finds the chunks an entity titles or heads, best first, apart from those that merely mention it', () => {
    const store = openStore();
    const own = add(store, 'Vantor TS-40', [chunk(0, 'A temperature sensor.')]);
    const headed = add(store, 'Sensors', [chunk(0, 'Intro.'), chunk(1, 'Accurate to 0.1 degrees.', ['Vantor TS-40'])]);
    for (let i = 0; i < 30; i++) add(store, `Mission ${i}`, [chunk(0, `Mission ${i} flew with the Vantor TS-40 on board.`)]);
    const m = store.entityMentions('"vantor" "ts 40"', { labelled: 10, mentioned: 5 });
    expect(m.labelled.map((h) => h.docId).sort()).toEqual([own, headed].sort());
    // the document titled exactly by the entity ranks first among those its labels name
    expect(m.labelled[0]!.docId).toBe(own);
    expect(m.labelled.find((h) => h.docId === headed)!.headingPath).toEqual(['Vantor TS-40']);
    // mentions are read up to their limit, and never repeat a labelled chunk
    expect(m.mentioned).toHaveLength(5);
    expect(m.mentioned.some((h) => h.docId === own || h.docId === headed)).toBe(false);
    // an access filter applies inside both searches
    const only = new Set([headed]);
    const filtered = store.entityMentions('"vantor" "ts 40"', { labelled: 10, mentioned: 5 }, only);
    expect([...filtered.labelled, ...filtered.mentioned].every((h) => h.docId === headed)).toBe(true);
    store.close();
  });

  it('counts matches up to a cap, and counts afresh once the store changes', () => {
    const store = openStore();
    for (let i = 0; i < 12; i++) add(store, `Doc ${i}`, [chunk(0, `The radio uses the 868 MHz band, note ${i}.`)]);
    expect(store.countTextMatches('"868"', 100)).toBe(12);
    expect(store.countTextMatches('"868"', 5)).toBe(5);
    add(store, 'Doc 12', [chunk(0, 'Another 868 MHz radio.')]);
    expect(store.countTextMatches('"868"', 100)).toBe(13);
    expect(store.countTextMatches('"868"', 100, new Set([1, 2]))).toBe(2);
    store.close();
  });

  it('keeps titles and headings searchable through document removal and replacement', () => {
    const store = openStore();
    const id = add(store, 'Heron buoy', [chunk(0, 'Moored at the harbour.')]);
    expect(store.entityMentions('"heron"', { labelled: 5, mentioned: 5 }).labelled.map((h) => h.docId)).toEqual([id]);
    store.deleteDocument(id);
    expect(store.entityMentions('"heron"', { labelled: 5, mentioned: 5 }).labelled).toEqual([]);
    store.close();
  });

  it('gives a version-3 store its title and heading index when it is opened', () => {
    const dataDir = tempDir();
    dirs.push(dataDir);
    const file = path.join(dataDir, 'ragask.db');
    const raw = new Database(file);
    for (const m of MIGRATIONS.filter((x) => x.version <= 3)) raw.exec(m.sql);
    raw.pragma('user_version = 3');
    raw.prepare("INSERT INTO documents (id, source, path, title, kind, content_hash, bytes, ingested_at) VALUES (1, 's', 'p', 'Project Falcon', 'markdown', 'h', 1, 'now')").run();
    raw
      .prepare("INSERT INTO chunks (id, doc_id, ord, kind, heading_path, page, text, token_count, density, entities) VALUES (7, 1, 0, 'paragraph', '[\"Team\"]', NULL, 'Lead: Mirela', 3, 0, '[]')")
      .run();
    raw.prepare("INSERT INTO chunks_fts (rowid, title, headings, body) VALUES (7, 'Project Falcon', 'Team', 'Lead: Mirela')").run();
    raw.close();
    const db = openDatabase(file);
    expect(db.prepare('SELECT rowid FROM chunk_labels_fts WHERE chunk_labels_fts MATCH \'"falcon"\'').all()).toEqual([{ rowid: 7 }]);
    db.close();
  });
});
