import fs from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ConversationStore, ResultCodec } from '../../src/store/conversation.js';
import type { Store } from '../../src/store/interfaces.js';
import { PgConversations } from '../../src/store/pg/conversations.js';
import { openPool } from '../../src/store/pg/db.js';
import { PgStore } from '../../src/store/pg/store.js';
import { SqliteConversations } from '../../src/store/sqlite/conversations.js';
import { SqliteStore } from '../../src/store/sqlite/store.js';
import type { ChunkInput, DocFilter } from '../../src/store/types.js';
import { chunkInput, tempDir } from '../helpers.js';
import { BACKENDS, freshSchema, skipBackend, type Backend } from '../pg.js';

// One contract suite, two backends: every storage room (documents, text search, vectors, caches,
// access, conversations) is held to the same literal expectations on SQLite and on PostgreSQL.

const HNSW = { m: 8, efConstruction: 20, efSearch: 20 };
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const done of cleanups.splice(0).reverse()) await done();
});

/** An empty store of a backend (PostgreSQL: in a schema of its own), closed after the test. */
async function openStore(backend: Backend): Promise<Store> {
  let store: Store;
  if (backend === 'sqlite') {
    const dataDir = tempDir();
    cleanups.push(() => fs.rmSync(dataDir, { recursive: true, force: true }));
    store = SqliteStore.open({ dataDir, model: 'test/4', dimension: 4, hnsw: HNSW });
  } else {
    const { url, drop } = await freshSchema('contract');
    cleanups.push(drop);
    store = await PgStore.open({ url, model: 'test/4', dimension: 4, hnsw: HNSW });
  }
  cleanups.push(() => store.close());
  return store;
}

const vec = (...xs: number[]) => new Float32Array(xs);
const chunk = (ord: number, text: string, v: Float32Array, headingPath: string[] = []): ChunkInput =>
  chunkInput(ord, text, [v], headingPath);

/** Writes a document of `chunks` under /d/<name>.md; returns its id. */
async function put(store: Store, name: string, chunks: ChunkInput[]): Promise<number> {
  const source = `/d/${name}.md`;
  const doc = { source, path: source, title: name, kind: 'markdown' as const, url: null, contentHash: name, bytes: 1 };
  const [id] = await store.documents.replaceDocuments([{ doc, chunks }]);
  return id!;
}

/** Two documents: "relay" (two chunks) and "valve" (one). */
async function seed(store: Store): Promise<{ relay: number; valve: number }> {
  const relay = await put(store, 'relay', [
    chunk(0, 'The relay station forwards alarms.', vec(1, 0, 0, 0), ['Relay']),
    chunk(1, 'Its backup battery lasts 90 days.', vec(0, 1, 0, 0), ['Relay', 'Power']),
  ]);
  const valve = await put(store, 'valve', [chunk(0, 'The valve closes at 40 bar.', vec(0, 0, 1, 0))]);
  await store.caches.syncIndex();
  return { relay, valve };
}

describe.each(BACKENDS)('storage contract (%s)', (backend) => {
  const it_ = skipBackend(backend) ? it.skip : it;
  let store: Store;
  beforeEach(async () => {
    if (!skipBackend(backend)) store = await openStore(backend);
  });

  it_('documents: written whole, read by source, by id and by prefix, replaced and deleted', async () => {
    const { relay, valve } = await seed(store);
    expect((await store.documents.listDocuments()).map((d) => d.source)).toEqual(['/d/relay.md', '/d/valve.md']);
    expect((await store.documents.getDocumentBySource('/d/valve.md'))?.title).toBe('valve');
    expect(await store.documents.getDocumentBySource('/d/none.md')).toBeUndefined();
    expect((await store.documents.sourcesUnder('/d/r')).map((d) => d.source)).toEqual(['/d/relay.md']);
    expect((await store.documents.chunksOfDocument(relay)).map((c) => c.text)).toEqual([
      'The relay station forwards alarms.',
      'Its backup battery lasts 90 days.',
    ]);
    const [first] = await store.documents.chunkIdsOfDocument(relay);
    const got = (await store.documents.getChunks([first!])).get(first!);
    expect([got?.doc.title, got?.headingPath]).toEqual(['relay', ['Relay']]);
    // a chunk's section id in its hosted page comes back as written, and none where none was given
    const anchored = await put(store, 'anchored', [
      { ...chunk(0, 'Tag releases with signed tags.', vec(1, 1, 0, 0), ['Tagging']), anchor: '_tagging' },
    ]);
    const [anchoredChunk] = await store.documents.chunksOfDocument(anchored);
    expect([anchoredChunk?.anchor, got?.anchor]).toEqual(['_tagging', null]);
    await store.documents.deleteDocument(anchored);
    expect(await store.documents.counts()).toEqual({ documents: 2, chunks: 3, windows: 3 });
    await put(store, 'relay', [chunk(0, 'The relay was retired.', vec(1, 0, 0, 0))]);
    expect(await store.documents.counts()).toEqual({ documents: 2, chunks: 2, windows: 2 });
    await store.documents.deleteDocument(valve);
    expect(await store.documents.counts()).toEqual({ documents: 1, chunks: 1, windows: 1 });
  });

  it_('text search: BM25 ranks, counts and entity mentions', async () => {
    const { relay, valve } = await seed(store);
    const hits = await store.text.searchText({ terms: ['battery'], match: 'any' }, 5);
    const texts = await store.documents.getChunks(hits.map((h) => h.chunkId));
    expect(hits.map((h) => texts.get(h.chunkId)?.text)).toEqual(['Its backup battery lasts 90 days.']);
    expect(hits[0]!.score).toBeGreaterThan(0);
    const counts = await store.text.countTextMatches(
      [
        { terms: ['the'], match: 'any' },
        { terms: ['relay', 'valve'], match: 'all' },
        { terms: ['relay station'], match: 'any' },
      ],
      10,
    );
    expect(counts).toEqual([2, 0, 1]);
    const the = [{ terms: ['the'], match: 'any' as const }];
    expect(await store.text.countTextMatches(the, 10, { only: new Set([valve]) })).toEqual([1]);
    // every document but the valve: the relay's chunk that holds "the" (an access filter listing the few kept out)
    expect(await store.text.countTextMatches(the, 10, { except: new Set([valve]) })).toEqual([1]);
    expect(await store.text.countTextMatches(the, 10, { except: new Set([relay, valve]) })).toEqual([0]);
    const textsOf = async (filter: DocFilter) => {
      const found = await store.text.searchText(the[0]!, 5, undefined, filter);
      const chunks = await store.documents.getChunks(found.map((h) => h.chunkId));
      return found.map((h) => chunks.get(h.chunkId)?.text);
    };
    expect(await textsOf({ except: new Set([relay]) })).toEqual(['The valve closes at 40 bar.']);
    expect(await textsOf({ only: new Set([relay]) })).toEqual(['The relay station forwards alarms.']);
    const [mentions] = await store.text.entityMentions([{ terms: ['relay'], match: 'all' }], {
      labelled: 5,
      mentioned: 5,
    });
    expect(mentions!.labelled.map((m) => m.title)).toEqual(['relay', 'relay']);
    const [kept] = await store.text.entityMentions(
      [{ terms: ['relay'], match: 'all' }],
      { labelled: 5, mentioned: 5 },
      { except: new Set([relay]) },
    );
    expect([kept!.labelled, kept!.mentioned]).toEqual([[], []]);
  });

  it_('vectors: windows by chunk and by id, searched through the index, re-embedded', async () => {
    const { valve } = await seed(store);
    const [valveChunk] = await store.documents.chunkIdsOfDocument(valve);
    const [window] = await store.vectors.windowsOfChunks([valveChunk!]);
    expect([...window!.vector]).toEqual([0, 0, 1, 0]);
    expect((await store.vectors.windowChunks([window!.id])).get(window!.id)).toBe(valveChunk);
    expect((await store.index.search(vec(0, 0, 1, 0), 1)).map((h) => h.windowId)).toEqual([window!.id]);
    // the valve's own vector, with the valve kept out: the nearest window of another document
    const [other] = await store.index.search(vec(0, 0, 1, 0), 1, { except: new Set([valve]) });
    expect(other!.windowId).not.toBe(window!.id);
    expect(await store.index.search(vec(0, 0, 1, 0), 5, { only: new Set([valve]) })).toHaveLength(1);
    expect((await store.vectors.allWindowVectors()).length).toBe(3);
    expect((await store.vectors.windowTexts()).map((w) => w.text)).toEqual([
      'The relay station forwards alarms.',
      'Its backup battery lasts 90 days.',
      'The valve closes at 40 bar.',
    ]);
    // the newest windows only, still in id order (the encoder's limit is measured on them)
    expect((await store.vectors.windowTexts(2)).map((w) => [w.title, w.text])).toEqual([
      ['relay', 'Its backup battery lasts 90 days.'],
      ['valve', 'The valve closes at 40 bar.'],
    ]);
    await store.vectors.beginReembedding('test/4b');
    await store.vectors.setVectors([{ id: window!.id, vector: vec(0, 0, 0, 1) }]);
    await store.vectors.finishReembedding('test/4b', 4);
    expect([...(await store.vectors.windowsOfChunks([valveChunk!]))[0]!.vector]).toEqual([0, 0, 0, 1]);
    expect((await store.index.search(vec(0, 0, 0, 1), 1)).map((h) => h.windowId)).toEqual([window!.id]);
    // a document added after a filtered search is found by the next one that admits it
    const pump = await put(store, 'pump', [chunk(0, 'The pump idles.', vec(0, 1, 1, 0))]);
    await store.caches.syncIndex();
    const [pumpChunk] = await store.documents.chunkIdsOfDocument(pump);
    const [pumpWindow] = await store.vectors.windowsOfChunks([pumpChunk!]);
    expect((await store.index.search(vec(0, 1, 1, 0), 5, { only: new Set([pump]) })).map((h) => h.windowId)).toEqual([
      pumpWindow!.id,
    ]);
    expect(
      (await store.index.search(vec(0, 1, 1, 0), 5, { except: new Set([pump]) })).map((h) => h.windowId),
    ).not.toContain(pumpWindow!.id);
  });

  it_('caches: the query cache, the ingest cursors and the index log', async () => {
    expect(await store.caches.cachedQuery('k1')).toBeNull();
    await store.caches.cacheQuery('k1', '{"a":1}', 100);
    await store.caches.cacheQuery('k2', '{"b":2}', 200);
    expect(await store.caches.cachedQuery('k1')).toEqual({ value: '{"a":1}', createdAt: 100 });
    expect(await store.caches.dropCachedQueries({ before: 150 })).toBe(1);
    expect(await store.caches.dropCachedQueries({ key: 'k2' })).toBe(1);
    expect(await store.caches.ingestCursor('slack:C1')).toBeNull();
    await store.caches.setIngestCursor('slack:C1', '1700000000.000100');
    expect(await store.caches.ingestCursor('slack:C1')).toBe('1700000000.000100');
    await seed(store);
    expect(await store.caches.syncIndex()).toBe(0);
    expect(await store.index.size()).toBe(3);
  });

  it_('access: scopes and source flags, each a new access version', async () => {
    const { relay, valve } = await seed(store);
    const v0 = await store.access.accessVersion();
    expect(await store.access.setScope([valve], { kind: 'channels', channels: ['C1'] })).toBe(1);
    const v1 = await store.access.accessVersion();
    expect(v1).toBeGreaterThan(v0);
    const scopes = await store.access.scopes();
    expect([scopes.get(relay), scopes.get(valve)]).toEqual([
      { kind: 'public' },
      { kind: 'channels', channels: ['C1'] },
    ]);
    const groups = (await store.access.scopeGroups()).sort((x, y) => x.docIds[0]! - y.docIds[0]!);
    expect(groups).toEqual([
      { scope: { kind: 'public' }, docIds: [relay] },
      { scope: { kind: 'channels', channels: ['C1'] }, docIds: [valve] },
    ]);
    await store.access.flagSource({ source: '/d/relay.md', action: 'hide', by: 'U1', at: 1000 });
    await store.access.flagSource({ source: '/d/valve.md', action: 'demote', by: 'U2', at: 2000 });
    expect(await store.access.accessVersion()).toBeGreaterThan(v1);
    const flagged = await store.access.flaggedDocuments();
    expect([[...flagged.hidden], [...flagged.demoted]]).toEqual([[relay], [valve]]);
    await store.access.flagSource({ source: '/d/relay.md', action: 'restore', by: 'U1', at: 3000 });
    expect(await store.access.sourceFlags()).toEqual([{ source: '/d/valve.md', action: 'demote', by: 'U2', at: 2000 }]);
    expect((await store.access.sourceActions(2)).map((a) => a.action)).toEqual(['restore', 'demote']);
  });
});

/** A front end's answers as plain text: the contract keeps whatever its codec writes. */
const TEXT_CODEC: ResultCodec<string> = {
  encode: (r) => JSON.stringify({ v: 1, r }),
  decode: (t) => (JSON.parse(t) as { r: string }).r,
  shortAnswer: (r) => r,
};

async function openConversations(backend: Backend): Promise<ConversationStore<string>> {
  const opts = { codec: TEXT_CODEC, ttlMs: 3600_000 };
  if (backend === 'sqlite') {
    const dataDir = tempDir();
    cleanups.push(() => fs.rmSync(dataDir, { recursive: true, force: true }));
    const store = SqliteStore.open({ dataDir, model: 'test/4', dimension: 4, hnsw: HNSW });
    cleanups.push(() => store.close());
    return new SqliteConversations(store.db, opts);
  }
  const { url, drop } = await freshSchema('conv');
  cleanups.push(drop);
  const pool = await openPool(url);
  cleanups.push(() => pool.end());
  return new PgConversations(pool, opts);
}

describe.each(BACKENDS)('conversation contract (%s)', (backend) => {
  const it_ = skipBackend(backend) ? it.skip : it;

  it_('claims an event once, keeps threads, states used once, feedback and questions', async () => {
    const conv = await openConversations(backend);
    expect((await conv.events.claimEvent('Ev1', 'C1')).status).toBe('new');
    expect((await conv.events.claimEvent('Ev1', 'C1')).status).toBe('duplicate');
    await conv.events.finishEvent('Ev1', 'answered', '111.1');
    expect(await conv.events.eventStatus('Ev1')).toBe('answered');
    const turn = { user: 'U1', question: 'How long does the battery last?', messageTs: '111.1', result: '90 days' };
    const thread = await conv.threads.addTurn('C1', '100.0', turn);
    expect([thread.participants, thread.turns.map((t) => t.result)]).toEqual([['U1'], ['90 days']]);
    const key = await conv.states.saveState({
      channel: 'C1',
      threadTs: '100.0',
      messageTs: '111.1',
      owner: 'U1',
      result: 'x',
    });
    expect((await conv.states.getState(key))?.result).toBe('x');
    expect(await conv.states.useState(key, 'U1')).toBe(true);
    expect(await conv.states.useState(key, 'U1')).toBe(false);
    const feedback = { stateKey: key, channel: 'C1', threadTs: '100.0', messageTs: '111.1', user: 'U1' };
    expect(
      await conv.feedback.addFeedback({ ...feedback, value: 'helpful', question: 'q', answer: 'a', evidence: [3] }),
    ).toBe(true);
    expect((await conv.feedback.listFeedback()).map((f) => [f.value, f.evidence])).toEqual([['helpful', [3]]]);
    const [asked] = await conv.threads.recentQuestions('U1', 5);
    expect([asked?.question, asked?.answer, asked?.feedback?.value]).toEqual([
      'How long does the battery last?',
      '90 days',
      'helpful',
    ]);
  });
});
