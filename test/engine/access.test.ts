import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Core } from '../../src/core.js';
import { AccessResolver } from '../../src/engine/access.js';
import { redactResult } from '../../src/engine/redact.js';
import type { EngineResult } from '../../src/engine/types.js';
import { LOCAL, allows, parseScope, type AccessContext } from '../../src/store/access.js';
import { SAMPLE_DIR, sampleCore } from '../helpers.js';

let core: Core;
let cleanup: () => Promise<void>;
const A: AccessContext = { kind: 'slack', channel: 'CA', user: 'U1', isDM: false };
const B: AccessContext = { kind: 'slack', channel: 'CB', user: 'U2', isDM: false };
const dmOwner: AccessContext = { kind: 'slack', channel: 'D1', user: 'UPRIV', isDM: true };
const dmOther: AccessContext = { kind: 'slack', channel: 'D2', user: 'U2', isDM: true };
let incidentDocs: Set<number>;
let peopleDoc: number;

beforeAll(async () => {
  ({ core, cleanup } = await sampleCore({ RAGASK_QUERY_CACHE_TTL_S: 3600 }));
  const docs = await core.store.documents.listDocuments();
  incidentDocs = new Set(docs.filter((d) => d.source.startsWith(path.join(SAMPLE_DIR, 'incidents'))).map((d) => d.id));
  peopleDoc = docs.find((d) => d.source.endsWith('people.md'))!.id;
  await core.store.access.setScope([...incidentDocs], parseScope('channel:CA'));
  await core.store.access.setScope([peopleDoc], parseScope('user:UPRIV'));
});
afterAll(() => cleanup());

/** Every document id a result shows anywhere: evidence, hops, candidates, suggestions, answer. */
function docsShown(r: EngineResult): Set<number> {
  const ids = new Set<number>();
  const chunkDoc = new Map(r.evidence.map((e) => [e.chunkId, e.docId]));
  for (const e of r.evidence) ids.add(e.docId);
  for (const h of r.hops) {
    for (const x of h.retrieved) ids.add(x.docId);
    for (const s of h.snippets) ids.add(s.docId);
    for (const c of h.candidates) {
      if (c.sourceDocId !== null) ids.add(c.sourceDocId);
      if (c.linkDocId !== null) ids.add(c.linkDocId);
      if (c.chunkId !== null && chunkDoc.has(c.chunkId)) ids.add(chunkDoc.get(c.chunkId)!);
    }
  }
  for (const s of r.suggestions) {
    if (s.sourceDocId !== null) ids.add(s.sourceDocId);
    if (s.linkDocId !== null) ids.add(s.linkDocId);
  }
  for (const s of [
    r.answer.source,
    ...r.answer.chain,
    ...r.answer.leads,
    ...r.answer.alternatives.map((a) => a.snippet),
    ...r.answer.conflicts.flatMap((c) => c.values.map((v) => v.snippet)),
  ])
    if (s) ids.add(s.docId);
  return ids;
}

const q = 'Who leads the project whose drone lost telemetry on 2024-03-14?';
const hidden = (r: EngineResult, ids: Iterable<number>) => [...ids].filter((id) => docsShown(r).has(id));

describe('scopes', () => {
  it('parses and checks public, channel and user scopes', () => {
    expect(allows(parseScope('public'), B)).toBe(true);
    expect(allows(parseScope('channel:CA,CC'), A)).toBe(true);
    expect(allows(parseScope('channel:CA'), B)).toBe(false);
    expect(allows(parseScope('channel:CA'), { ...A, isDM: true })).toBe(false);
    expect(allows(parseScope('user:UPRIV'), dmOwner)).toBe(true);
    expect(allows(parseScope('user:UPRIV'), { ...dmOwner, isDM: false })).toBe(false);
    expect(allows(parseScope('user:UPRIV'), dmOther)).toBe(false);
    expect(allows(null, A)).toBe(false);
    expect(() => parseScope('channel:#general')).toThrow(/--scope: must be public, channel:<id>/);
  });
});

describe('retrieval filters by who asks, where, inside the engine', () => {
  it('shows a channel-scoped document in its channel and nowhere else', async () => {
    const inA = await core.engine.run(q, A);
    expect(hidden(inA, incidentDocs).length).toBeGreaterThan(0);
    for (const ctx of [B, dmOther, dmOwner]) {
      const r = await core.engine.run(q, ctx);
      expect(hidden(r, incidentDocs)).toEqual([]);
    }
    // the operator sees everything
    expect(hidden(await core.engine.run(q, LOCAL), incidentDocs).length).toBeGreaterThan(0);
  });

  it("shows a user-private document only in that user's DMs", async () => {
    const question = 'In which office does Tomasz Brenner work?';
    expect(docsShown(await core.engine.run(question, dmOwner)).has(peopleDoc)).toBe(true);
    for (const ctx of [A, B, dmOther])
      expect(docsShown(await core.engine.run(question, ctx)).has(peopleDoc)).toBe(false);
  });

  it("never serves one context's cached retrieval to another", async () => {
    await core.engine.run(q, A);
    const again = await core.engine.run(q, B);
    expect(hidden(again, incidentDocs)).toEqual([]);
  });

  it('carries nothing hidden into a follow-up asked in another context', async () => {
    const fromA = await core.engine.run(q, A);
    const follow = await core.engine.followUp(
      JSON.parse(JSON.stringify(fromA)),
      'and which office is the field operations engineer in?',
      B,
    );
    expect(hidden(follow, incidentDocs)).toEqual([]);
    // the rewritten query may not name what only the hidden evidence said
    expect(follow.hops[0]!.query).not.toMatch(/INC-2024-031|Alta/);
  });

  it("refuses to resume another context's chain with a suggestion drawn from hidden evidence", async () => {
    const fromA = await core.engine.run(q, A, { coherenceThreshold: 0.999, stopForPerson: 'always' });
    expect(fromA.suggestions.length).toBeGreaterThan(0);
    await expect(core.engine.resume(fromA, 0, B)).rejects.toThrow(RangeError);
    const inA = await core.engine.resume(fromA, 0, A);
    expect(inA.hops.length).toBe(2);
  });

  it('redacts a stored result for another context (trace view)', async () => {
    const fromA = await core.engine.run(q, A);
    const forB = redactResult(fromA, await core.access.resolve(B));
    expect(hidden(forB, incidentDocs)).toEqual([]);
    expect(forB.suggestions).toEqual([]);
    expect(redactResult(fromA, await core.access.resolve(A))).toEqual(fromA);
  });

  it("drops the writer's sentences from a trace when any evidence they were written from is hidden", async () => {
    const written = {
      model: 'm',
      ms: 5,
      failed: null,
      sentences: [{ text: 'x [1].', citations: [1], kept: true, reason: null, detail: null, support: 0.9 }],
    };
    const fromA = { ...(await core.engine.run(q, A)), written };
    expect(fromA.evidence.some((s) => incidentDocs.has(s.docId))).toBe(true);
    expect(redactResult(fromA, await core.access.resolve(B)).written).toBeUndefined();
    expect(redactResult(fromA, await core.access.resolve(A)).written).toEqual(written);
  });

  it('drops a hop whose query came from a bridge leading to a hidden document, even when its snippets are visible', async () => {
    const full = await core.engine.run(q, LOCAL);
    const last = full.hops.length - 1;
    expect(last).toBeGreaterThan(0);
    // the last hop's bridge is said to lead to a document no snippet of that hop comes from
    const shown = new Set(
      full.hops.flatMap((h) => [...h.retrieved.map((x) => x.docId), ...h.snippets.map((s) => s.docId)]),
    );
    const unseen = Math.max(
      ...(await core.store.documents.listDocuments()).map((d) => d.id).filter((id) => !shown.has(id)),
    );
    const r: EngineResult = {
      ...full,
      hops: full.hops.map((h, i) =>
        i === last ? { ...h, bridgeFrom: { sourceDocId: h.bridgeFrom?.sourceDocId ?? null, linkDocId: unseen } } : h,
      ),
    };
    const access = {
      ...(await core.access.resolve(LOCAL)),
      allowedDocs: null,
      allowDoc: (id: number) => id !== unseen,
    };
    const red = redactResult(r, access);
    expect(red.hops.map((h) => h.query)).toEqual(full.hops.slice(0, last).map((h) => h.query));
    expect(red.hops.at(-1)!.nextQuery).toBeNull();
    expect(red.suggestions).toEqual([]);
    // the answer is composed from the hops that remain, so it cites none of the dropped hop's snippets
    const keptChunks = new Set(red.hops.flatMap((h) => h.retrieved.map((x) => x.chunkId)));
    for (const s of [red.answer.source, ...red.answer.chain]) if (s) expect(keptChunks.has(s.chunkId)).toBe(true);
  });
});

describe('resolving who may see what', () => {
  it("reads no document's scope for the command line while nothing is hidden, and the scopes once per version for Slack", async () => {
    let reads = 0;
    const access = {
      ...core.store.access,
      accessVersion: () => core.store.access.accessVersion(),
      flaggedDocuments: () => core.store.access.flaggedDocuments(),
      scopeGroups: () => {
        reads++;
        return core.store.access.scopeGroups();
      },
    };
    const resolver = new AccessResolver({ ...core.store, access } as typeof core.store);
    const local = await resolver.resolve(LOCAL);
    expect([reads, local.docFilter, local.allowDoc(peopleDoc)]).toEqual([0, null, true]);
    const a = await resolver.resolve(A);
    expect([reads, a.allowDoc(peopleDoc), a.allowDoc([...incidentDocs][0]!)]).toEqual([1, false, true]);
    // another context at the same access version resolves from the same reading
    const b = await resolver.resolve(B);
    expect([reads, b.allowDoc(peopleDoc), b.allowDoc([...incidentDocs][0]!)]).toEqual([1, false, false]);
    // a third channel that sees what B sees shares B's filter and caches; A, which sees more, does not
    const c = await resolver.resolve({ kind: 'slack', channel: 'CC', user: 'U3', isDM: false });
    expect([c.docFilter === b.docFilter, c.scopeKey === b.scopeKey, a.scopeKey === b.scopeKey, reads]).toEqual([
      true,
      true,
      false,
      1,
    ]);
  });

  it('filters by the shorter list: none where every scope allows, else the allowed or the others; exact for documents added since', async () => {
    let version = 7;
    let reads = 0;
    const access = {
      accessVersion: async () => version,
      flaggedDocuments: async () => ({ hidden: new Set<number>(), demoted: new Set<number>() }),
      scopeGroups: async () => {
        reads++;
        return version === 7
          ? [
              { scope: { kind: 'public' as const }, docIds: [1, 2, 5] },
              { scope: { kind: 'channels' as const, channels: ['CA'] }, docIds: [3] },
            ]
          : [
              { scope: { kind: 'public' as const }, docIds: [1] },
              { scope: { kind: 'channels' as const, channels: ['CA'] }, docIds: [2, 3, 4, 5] },
            ];
      },
    };
    const resolver = new AccessResolver({ access } as unknown as typeof core.store);
    const a = await resolver.resolve(A);
    // document 6 was added after the scopes were read; 4 was never there; A sees all, as the command line does
    expect([a.scopeKey, (await resolver.resolve(LOCAL)).scopeKey]).toEqual(['all@7', 'all@7']);
    expect([a.docFilter, [1, 2, 3, 4, 5, 6, -1].map((id) => a.allowDoc(id)), reads]).toEqual([
      null,
      [true, true, true, false, true, false, false],
      1,
    ]);
    // B may not see the one channel document: its searches keep that one out rather than list the rest
    const b = await resolver.resolve(B);
    expect([b.docFilter, [1, 2, 3, 5, 6].map((id) => b.allowDoc(id)), reads]).toEqual([
      { except: new Set([3]) },
      [true, true, false, true, false],
      1,
    ]);
    // at the next version most documents are the channel's: B's searches list the one it may see
    version = 8;
    const b8 = await resolver.resolve(B);
    expect([b8.docFilter, [1, 2, 6].map((id) => b8.allowDoc(id)), reads]).toEqual([
      { only: new Set([1]) },
      [true, false, false],
      2,
    ]);
  });

  it('lists the documents once per access version, again after a change, and not a failed reading', async () => {
    let version = 3;
    let lists = 0;
    const rows = [{ id: 1 }, { id: 2 }];
    const store = {
      access: { accessVersion: async () => version },
      documents: {
        listDocuments: async () => {
          lists++;
          if (lists === 3) throw new Error('database is locked');
          return rows.slice(0, version === 3 ? 2 : 1);
        },
      },
    };
    const resolver = new AccessResolver(store as unknown as typeof core.store);
    const first = await resolver.documents();
    const again = await resolver.documents();
    expect([first.map((d) => d.id), again === first, lists]).toEqual([[1, 2], true, 1]);
    version = 4;
    expect([(await resolver.documents()).map((d) => d.id), lists]).toEqual([[1], 2]);
    version = 5;
    await expect(resolver.documents()).rejects.toThrow('database is locked');
    expect([(await resolver.documents()).map((d) => d.id), lists]).toEqual([[1], 4]);
  });
});
