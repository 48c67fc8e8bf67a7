import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openCore, type Core } from '../../src/core.js';
import { dueSources, readSourcesFile, syncPass, syncStatuses, type SyncSource } from '../../src/ingest/sync.js';
import { UserError } from '../../src/errors.js';
import { ROOT, tempDir, testConfig } from '../helpers.js';

const PDF = path.join(ROOT, 'test', 'fixtures', 'exports', 'confluence', 'OPS', 'attachments', '65541', '98401.pdf');

let core: Core;
let dir: string;
let deps: Parameters<typeof syncPass>[0];
beforeAll(async () => {
  dir = tempDir();
  const config = testConfig(path.join(dir, 'data'));
  core = await openCore(config);
  deps = { store: core.store, encoder: core.encoder, config };
});
afterAll(async () => {
  await core.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const write = (rel: string, text: string | Buffer) => {
  fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
  fs.writeFileSync(path.join(dir, rel), text);
};
const counts = (r: Awaited<ReturnType<typeof syncPass>>) =>
  r.map(({ status: s }) => [s.added, s.changed, s.unchanged, s.removed, s.failed]);

describe('ragask sync', () => {
  it('reads a sources file, and names a bad entry in one line', () => {
    write('sources.yml', 'sources:\n  - path: docs\n    every: 30m\n  - path: wiki\n    scope: channel:C0123ABCD\n');
    const sources = readSourcesFile(path.join(dir, 'sources.yml'));
    expect(sources.map((s) => [path.relative(dir, s.path), s.kind, s.everyMs, s.scope ?? null])).toEqual([
      ['docs', 'detect', 1_800_000, null],
      ['wiki', 'detect', 3_600_000, { kind: 'channels', channels: ['C0123ABCD'] }],
    ]);
    write('bad.yml', 'sources:\n  - path: docs\n    every: weekly\n');
    expect(() => readSourcesFile(path.join(dir, 'bad.yml'))).toThrow(UserError);
    expect(() => readSourcesFile(path.join(dir, 'bad.yml'))).toThrow(
      `${path.join(dir, 'bad.yml')}: sources.0.every: a duration such as 30m, 1h or 1d; see README, "Keeping sources current"`,
    );
  });

  it('touches only what changed, prunes what was deleted, and keeps what it cannot read', async () => {
    write('docs/a.md', '# Alpha\n\nThe alpha service restarts nightly at 03:00.\n');
    write('docs/b.md', '# Beta\n\nThe beta queue holds at most 500 messages.\n');
    write('docs/c.pdf', fs.readFileSync(PDF));
    write('other/d.md', '# Delta\n\nDelta backups are kept for 35 days.\n');
    const sources: SyncSource[] = ['docs', 'other'].map((p) => ({
      path: path.join(dir, p),
      kind: 'detect',
      everyMs: 3_600_000,
    }));
    expect(counts(await syncPass(deps, sources))).toEqual([
      [3, 0, 0, 0, 0],
      [1, 0, 0, 0, 0],
    ]);
    // one file changed, one deleted, one no longer readable; the second source's folder gone
    write('docs/a.md', '# Alpha\n\nThe alpha service restarts nightly at 04:00.\n');
    fs.rmSync(path.join(dir, 'docs', 'b.md'));
    write('docs/c.pdf', 'this is not a PDF any more');
    fs.renameSync(path.join(dir, 'other'), path.join(dir, 'other-moved'));
    const second = await syncPass(deps, sources);
    expect(counts(second)).toEqual([
      [0, 1, 0, 1, 1],
      [0, 0, 0, 0, 1],
    ]);
    expect(second[1]!.status.error).toBe(
      `${path.join(dir, 'other')}: not found; its documents are kept until it is back (or drop it from the sources file)`,
    );
    const titles = (await core.store.documents.listDocuments()).map((d) => path.relative(dir, d.source)).sort();
    // the unreadable PDF and the missing folder's document are kept, the deleted file is gone
    expect(titles).toEqual(['docs/a.md', 'docs/c.pdf', 'other/d.md']);
    const recorded = await syncStatuses(core.store, sources);
    expect(
      recorded.map(
        ({ status }) => status && [status.added, status.changed, status.unchanged, status.removed, status.failed],
      ),
    ).toEqual([
      [0, 1, 0, 1, 1],
      [0, 0, 0, 0, 1],
    ]);
  });

  it('serves readers the old or the new version of a document during a sync, never half', async () => {
    const old = Array.from({ length: 12 }, (_, i) => `Old paragraph ${i} says the limit is ${i} requests.`).join(
      '\n\n',
    );
    write('whole/e.md', `# Echo\n\n${old}\n`);
    const source: SyncSource = { path: path.join(dir, 'whole'), kind: 'detect', everyMs: 3_600_000 };
    await syncPass(deps, [source]);
    write('whole/e.md', `# Echo\n\n${old.replaceAll('Old', 'New')}\n`);
    const seen = new Set<string>();
    let done = false;
    const reading = (async () => {
      while (!done) {
        const doc = (await core.store.documents.listDocuments()).find((d) => d.source.endsWith('e.md'));
        if (doc) {
          const texts = (await core.store.documents.chunksOfDocument(doc.id)).map((c) => c.text.split(' ')[0]);
          seen.add([...new Set(texts)].sort().join('+'));
        }
        await new Promise((r) => setImmediate(r));
      }
    })();
    const r = await syncPass(deps, [source]);
    done = true;
    await reading;
    expect(counts(r)).toEqual([[0, 1, 0, 0, 0]]);
    // every read saw one version whole ('' when the document was between its delete and insert is never seen)
    expect([...seen].every((v) => v === 'Old' || v === 'New' || v === '')).toBe(true);
    expect(seen.has('Old+New')).toBe(false);
  });

  it("serve's schedule passes over the sources whose time has come only", async () => {
    write('scheduled/f.md', '# Foxtrot\n\nFoxtrot deploys need a change ticket.\n');
    const hourly: SyncSource = { path: path.join(dir, 'scheduled'), kind: 'detect', everyMs: 3_600_000 };
    const daily: SyncSource = { path: path.join(dir, 'never'), kind: 'detect', everyMs: 86_400_000 };
    expect((await dueSources(core.store, [hourly, daily])).map((s) => path.basename(s.path))).toEqual([
      'scheduled',
      'never',
    ]);
    const [pass] = await syncPass(deps, [hourly]);
    const at = Date.parse(pass!.status.at);
    // synced a moment ago: not due; due again an hour after its pass; the other, never synced, is due
    expect((await dueSources(core.store, [hourly, daily], at + 60_000)).map((s) => path.basename(s.path))).toEqual([
      'never',
    ]);
    expect((await dueSources(core.store, [hourly, daily], at + 3_600_000)).map((s) => path.basename(s.path))).toEqual([
      'scheduled',
      'never',
    ]);
  });
});
