import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Core } from '../../src/core.js';
import { queryTerms, textQuery } from '../../src/engine/fts-query.js';
import { Retriever } from '../../src/engine/retrieve.js';
import { sampleCore, sampleRel } from '../helpers.js';

let core: Core;
let cleanup: () => Promise<void>;
beforeAll(async () => {
  ({ core, cleanup } = await sampleCore());
});
afterAll(() => cleanup());

describe('the BM25 query', () => {
  it('keeps every term while their postings fit the budget, and the rarest ones when they do not', async () => {
    const q = 'Which frequency band does the Skylink LR-9 radio of Project Heron use?';
    const all = textQuery(q);
    expect(await core.retriever.bm25Query(q)).toEqual(all);
    const terms = all.terms;
    const df = new Map<string, number>();
    for (const t of terms)
      df.set(t, (await core.store.text.countTextMatches([{ terms: [t], match: 'any' }], 1000))[0]!);
    const count = (t: string) => df.get(t)!;
    // a budget that only the rarer terms fit: the commonest ones go, the query keeps its order
    const sorted = [...terms].sort((a, b) => count(a) - count(b));
    const budget = count(sorted[0]!) + count(sorted[1]!);
    expect(count(sorted.at(-1)!)).toBeGreaterThan(budget);
    const tight = new Retriever({ store: core.store, encoder: core.encoder, bm25Postings: budget });
    const kept = (await tight.bm25Query(q)).terms;
    expect(kept.length).toBeGreaterThanOrEqual(2);
    expect(kept.length).toBeLessThan(terms.length);
    expect(kept).not.toContain(sorted.at(-1));
    expect(kept.reduce((n, t) => n + count(t), 0)).toBeLessThanOrEqual(budget);
    expect(kept).toEqual(terms.filter((t) => kept.includes(t)));
    // and one term stays even when it alone is over the budget
    expect(
      (await new Retriever({ store: core.store, encoder: core.encoder, bm25Postings: 0 }).bm25Query(q)).terms,
    ).toHaveLength(1);
  });
});

describe('hybrid retrieval with window rerank', () => {
  it('finds the supporting document of a direct question, citing its best window', async () => {
    const r = await core.retriever.retrieve('How long must the PM-5 warm up before readings are valid?', { k: 5 });
    const top = r.candidates[0]!;
    expect(sampleRel(top.chunk.doc.source)).toBe('datasheets/particula-pm5.md');
    expect(top.chunk.text.slice(top.window!.charStart, top.window!.charEnd)).toMatch(/90 seconds/);
    expect(top.dense).not.toBeNull();
    expect(top.bm25).not.toBeNull();
    for (let i = 1; i < r.candidates.length; i++)
      expect(r.candidates[i - 1]!.score).toBeGreaterThanOrEqual(r.candidates[i]!.score);
  });

  it('scores a chunk as its best window', async () => {
    const r = await core.retriever.retrieve('Which frequency band does the Skylink LR-9 use?', { k: 3 });
    for (const c of r.candidates) {
      const ws = (await core.retriever.windowsOf([c.chunk.id])).get(c.chunk.id)!;
      const best = Math.max(...ws.map((w) => w.vector.reduce((s, x, i) => s + x * r.queryVector[i]!, 0)));
      expect(c.rerank).toBeCloseTo(best, 5);
    }
  });

  it('excludes chunks already found and applies a document filter before ranking', async () => {
    const first = await core.retriever.retrieve('Project Falcon airframe', { k: 3 });
    const exclude = new Set(first.candidates.map((c) => c.chunk.id));
    const again = await core.retriever.retrieve('Project Falcon airframe', { k: 10, exclude });
    expect(again.candidates.some((c) => exclude.has(c.chunk.id))).toBe(false);
    const falconDoc = first.candidates[0]!.chunk.docId;
    const allowed = new Set(
      (await core.store.documents.listDocuments()).map((d) => d.id).filter((id) => id !== falconDoc),
    );
    const filtered = await core.retriever.retrieve('Project Falcon airframe', {
      k: 10,
      access: {
        context: { kind: 'slack', channel: 'C', user: 'U', isDM: false },
        scopeKey: 't',
        docFilter: { only: allowed },
        allowDoc: (id) => allowed.has(id),
        demoted: new Set(),
      },
    });
    expect(filtered.candidates.some((c) => c.chunk.docId === falconDoc)).toBe(false);
  });

  it("puts the focus entity's own document first", async () => {
    const r = await core.retriever.retrieve('What is the operating temperature range (Corvid FC-3)?', {
      k: 3,
      focus: 'Corvid FC-3',
    });
    expect(sampleRel(r.candidates[0]!.chunk.doc.source)).toBe('datasheets/corvid-fc3.md');
  });

  it('treats any text as words, never as query syntax', async () => {
    const hostile = 'NEAR(" OR *) AND title:x ^ "unbalanced -- ; DROP TABLE chunks; {col}: -z & !b | c:* <-> \\d';
    const terms = queryTerms(hostile);
    expect(terms.length).toBeGreaterThan(3);
    for (const t of terms) expect(t).toMatch(/^[\p{L}\p{N}]+( [\p{L}\p{N}]+)*$/u);
    await expect(core.retriever.retrieve(hostile, { k: 3 })).resolves.toBeDefined();
    expect(queryTerms('the of and')).toEqual([]);
  });
});
