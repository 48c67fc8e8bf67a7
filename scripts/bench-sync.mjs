#!/usr/bin/env node
// Issue 48's sync target: a 1,000-document source synced once, then one file changed and one
// deleted; the second pass must touch only those two, in under 2 s beyond re-encoding the changed one.
//
//   npm run build && node scripts/bench-sync.mjs [--docs 1000]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { openCore } = await import(path.join(root, 'dist', 'core.js'));
const { loadConfig } = await import(path.join(root, 'dist', 'config.js'));
const { syncPass } = await import(path.join(root, 'dist', 'ingest', 'sync.js'));
const n = Number(process.argv[process.argv.indexOf('--docs') + 1]) || 1000;
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ragask-bench-sync-'));
const docs = path.join(dir, 'docs');
fs.mkdirSync(docs);
const WORDS = 'queue retry backup deploy rotate token cache index replica shard lease quota alert audit'.split(' ');
const page = (i, v) =>
  `# Service ${i}\n\n${Array.from({ length: 4 }, (_, k) => `Service ${i} keeps its ${WORDS[(i + k) % WORDS.length]} for ${i + k + v} minutes and pages team ${i % 17}.`).join('\n\n')}\n`;
for (let i = 0; i < n; i++) fs.writeFileSync(path.join(docs, `service-${i}.md`), page(i, 0));
const config = loadConfig({}, { RAGASK_DATA_DIR: path.join(dir, 'data') });
const core = await openCore(config);
const deps = { store: core.store, encoder: core.encoder, config };
const source = { path: docs, kind: 'detect', everyMs: 3_600_000 };
try {
  let t = performance.now();
  const [first] = await syncPass(deps, [source]);
  process.stdout.write(`first pass: ${first.status.added} added in ${((performance.now() - t) / 1000).toFixed(1)} s\n`);
  fs.writeFileSync(path.join(docs, 'service-7.md'), page(7, 1));
  fs.rmSync(path.join(docs, 'service-8.md'));
  // what re-encoding the changed document costs on its own (its windows through the encoder)
  t = performance.now();
  await core.encoder.encode(page(7, 1).split('\n\n'));
  const encodeMs = performance.now() - t;
  t = performance.now();
  const [second] = await syncPass(deps, [source]);
  const ms = performance.now() - t;
  const s = second.status;
  process.stdout.write(
    `second pass: ${s.added} added, ${s.changed} changed, ${s.unchanged} unchanged, ${s.removed} removed, ${s.failed} failed in ${ms.toFixed(0)} ms (${(ms - encodeMs).toFixed(0)} ms beyond encoding the changed document, ${encodeMs.toFixed(0)} ms)\n`,
  );
} finally {
  await core.close();
  fs.rmSync(dir, { recursive: true, force: true });
}
