import fs from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { AccessResolver } from '../../src/engine/access.js';
import { SqliteStore } from '../../src/store/sqlite/store.js';
import type { Store } from '../../src/store/interfaces.js';
import { PgStore } from '../../src/store/pg/store.js';
import { chunkInput, tempDir } from '../helpers.js';
import { BACKENDS, freshSchema, type Backend } from '../pg.js';

// Admin actions on sources (`ragask sources hide|demote|restore`), the same on both backends: kept
// by source (a re-ingested file keeps its flag), logged with who acted, and seen by access at once.

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
});

const HNSW = { m: 8, efConstruction: 20, efSearch: 20 };

async function openStore(backend: Backend): Promise<Store> {
  if (backend === 'sqlite') {
    const dataDir = tempDir();
    cleanups.push(() => fs.rmSync(dataDir, { recursive: true, force: true }));
    return SqliteStore.open({ dataDir, model: 'test/4', dimension: 4, hnsw: HNSW });
  }
  const { url, drop } = await freshSchema('flags');
  cleanups.push(drop);
  return PgStore.open({ url, model: 'test/4', dimension: 4, hnsw: HNSW });
}

async function put(store: Store, source: string, text: string): Promise<number> {
  const [id] = await store.documents.replaceDocuments([
    {
      doc: { source, path: source, title: source, kind: 'markdown', url: null, contentHash: text, bytes: text.length },
      chunks: [chunkInput(0, text, [new Float32Array([1, 0, 0, 0])])],
    },
  ]);
  return id!;
}

describe.each(BACKENDS)('source flags (%s)', (backend) => {
  it('hides and demotes by source, keeps the flag across re-ingest, logs each action and restores', async () => {
    const store = await openStore(backend);
    cleanups.unshift(() => store.close());
    const old = await put(store, '/d/old.md', 'The VPN gateway is vpn-a.');
    const other = await put(store, '/d/new.md', 'The VPN gateway is vpn-b.');
    const access = new AccessResolver(store);
    const local = { kind: 'local' } as const;
    const channel = { kind: 'slack', channel: 'C1', user: 'U1', isDM: false } as const;
    expect((await access.resolve(local)).allowDoc(old)).toBe(true);

    const version = await store.access.accessVersion();
    await store.access.flagSource({ source: '/d/old.md', action: 'hide', by: 'U_ADMIN', at: 1000 });
    expect(await store.access.accessVersion()).toBeGreaterThan(version);
    for (const ctx of [local, channel]) {
      const seen = await access.resolve(ctx);
      expect(seen.allowDoc(old)).toBe(false);
      expect(seen.allowDoc(other)).toBe(true);
    }

    // re-ingested (a new document row for the same source): still hidden
    const again = await put(store, '/d/old.md', 'The VPN gateway is vpn-a (edited).');
    expect((await store.access.flaggedDocuments()).hidden).toEqual(new Set([again]));
    expect((await access.resolve(local)).allowDoc(again)).toBe(false);

    await store.access.flagSource({ source: '/d/old.md', action: 'demote', by: 'U_OPS', at: 2000 });
    const demoted = await access.resolve(channel);
    expect(demoted.allowDoc(again)).toBe(true);
    expect([...demoted.demoted]).toEqual([again]);
    expect(await store.access.sourceFlags()).toEqual([
      { source: '/d/old.md', action: 'demote', by: 'U_OPS', at: 2000 },
    ]);

    await store.access.flagSource({ source: '/d/old.md', action: 'restore', by: 'U_ADMIN', at: 3000 });
    expect(await store.access.sourceFlags()).toEqual([]);
    const restored = await access.resolve(channel);
    expect(restored.allowDoc(again)).toBe(true);
    expect(restored.demoted.size).toBe(0);
    expect((await store.access.sourceActions(10)).map((a) => [a.action, a.by, a.at])).toEqual([
      ['restore', 'U_ADMIN', 3000],
      ['demote', 'U_OPS', 2000],
      ['hide', 'U_ADMIN', 1000],
    ]);
  });
});
