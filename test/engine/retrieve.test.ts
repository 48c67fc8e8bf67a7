import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Core } from '../../src/core.js';
import { ftsQuery } from '../../src/engine/fts-query.js';
import { sampleCore, sampleRel } from '../helpers.js';

let core: Core;
let cleanup: () => Promise<void>;
beforeAll(async () => {
  ({ core, cleanup } = await sampleCore());
});
afterAll(() => cleanup());

describe('hybrid retrieval with window rerank', () => {
  it('finds the supporting document of a direct question, citing its best window', async () => {
    const r = await core.retriever.retrieve('How long must the PM-5 warm up before readings are valid?', { k: 5 });
    const top = r.candidates[0]!;
    expect(sampleRel(top.chunk.doc.source)).toBe('datasheets/particula-pm5.md');
    expect(top.chunk.text.slice(top.window!.charStart, top.window!.charEnd)).toMatch(/90 seconds/);
    expect(top.dense).not.toBeNull();
    expect(top.bm25).not.toBeNull();
    for (let i = 1; i < r.candidates.length; i++) expect(r.candidates[i - 1]!.score).toBeGreaterThanOrEqual(r.candidates[i]!.score);
  });

  it('scores a chunk as its best window', async () => {
    const r = await core.retriever.retrieve('Which frequency band does the Skylink LR-9 use?', { k: 3 });
    for (const c of r.candidates) {
      const ws = core.retriever.windowsOf([c.chunk.id]).get(c.chunk.id)!;
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
    const allowed = new Set(core.store.listDocuments().map((d) => d.id).filter((id) => id !== falconDoc));
    const filtered = await core.retriever.retrieve('Project Falcon airframe', { k: 10, access: { context: { kind: 'slack', channel: 'C', user: 'U', isDM: false }, scopeKey: 't', allowedDocs: allowed, allowDoc: (id) => allowed.has(id) } });
    expect(filtered.candidates.some((c) => c.chunk.docId === falconDoc)).toBe(false);
  });

  it('puts the focus entity\'s own document first', async () => {
    const r = await core.retriever.retrieve('What is the operating temperature range (Corvid FC-3)?', { k: 3, focus: 'Corvid FC-3' });
    expect(sampleRel(r.candidates[0]!.chunk.doc.source)).toBe('datasheets/corvid-fc3.md');
  });

  it('treats any text as words, never as FTS5 syntax', async () => {
    const hostile = 'NEAR(" OR *) AND title:x ^ "unbalanced -- ; DROP TABLE chunks; {col}: -z';
    expect(ftsQuery(hostile)).not.toMatch(/(^|\s)(AND|NEAR)\s|\*|\^/);
    await expect(core.retriever.retrieve(hostile, { k: 3 })).resolves.toBeDefined();
    expect(ftsQuery('the of and')).toBe('');
  });
});
