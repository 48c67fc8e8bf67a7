#!/usr/bin/env node
// Issue 48's citation check: the Confluence and Notion fixtures (test/fixtures/exports) ingested into
// a fresh store, then each question of test/fixtures/exports/questions.json asked as `ragask ask
// --json` would: is the first line's citation one of the expected pages, titled as that page (no
// "Space :" prefix, no Notion id), under a heading path without ids, linked to that page's address?
//
//   npm run build && node scripts/measure-exports.mjs
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const fixtures = path.join(root, 'test', 'fixtures', 'exports');
const data = fs.mkdtempSync(path.join(os.tmpdir(), 'ragask-exports-'));
const env = { ...process.env, RAGASK_DATA_DIR: data, RAGASK_QUERY_CACHE_TTL_S: '0' };
const ragask = (...args) => {
  const r = spawnSync(process.execPath, [path.join(root, 'bin', 'ragask.js'), ...args], { env, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`ragask ${args[0]} failed: ${r.stderr}`);
  return r.stdout;
};
ragask('ingest', path.join(fixtures, 'confluence', 'OPS'), '--base-url', 'https://acme.atlassian.net/wiki');
ragask('ingest', path.join(fixtures, 'notion'));
const questions = JSON.parse(fs.readFileSync(path.join(fixtures, 'questions.json'), 'utf8'));
const pageLink = /^https:\/\/(acme\.atlassian\.net\/wiki\/spaces\/OPS\/pages\/\d+|www\.notion\.so\/[0-9a-f]{32})$/;
for (const [kind, qs] of Object.entries(questions)) {
  let ok = 0;
  for (const [q, pages] of qs) {
    const r = JSON.parse(ragask('ask', q, '--json'));
    // the line shown first: the answer's sentence where a short answer is given, else the first lead
    const c = r.answer.source?.citation ?? r.answer.leads[0]?.citation;
    const good =
      c &&
      pages.includes(c.document) &&
      !/[0-9a-f]{32}|^Platform Operations : /.test([c.document, ...c.heading_path].join(' ')) &&
      pageLink.test(c.url ?? '');
    if (good) ok++;
    else process.stdout.write(`  miss (${kind}): ${q} → ${c ? `${c.document} ${c.url}` : 'no line'}\n`);
  }
  process.stdout.write(`${kind}: ${ok} of ${qs.length} first lines cite the page's own title, path and link\n`);
}
fs.rmSync(data, { recursive: true, force: true });
