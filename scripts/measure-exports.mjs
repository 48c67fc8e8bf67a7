#!/usr/bin/env node
// Issue 48's citation check: the Confluence and Notion fixtures (test/fixtures/exports) ingested into
// a fresh store, then each question of test/fixtures/exports/questions.json asked as `ragask ask
// --json` would: is the first line's citation one of the expected pages (for a database row, that
// row), titled as that page (no "Space :" prefix, no Notion id), under a heading path without ids,
// linked to that page's address? And does that line hold the answer; is a short answer right or wrong?
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
// the page, or its section on it (a Confluence heading's id)
const pageLink =
  /^https:\/\/(acme\.atlassian\.net\/wiki\/spaces\/OPS\/pages\/\d+(#[\w.-]+)?|www\.notion\.so\/[0-9a-f]{32})$/;
const holds = (text, gold) => (text ?? '').toLowerCase().includes(gold.toLowerCase());
for (const [kind, qs] of Object.entries(questions)) {
  let ok = 0;
  let visible = 0;
  let right = 0;
  let wrong = 0;
  for (const [q, pages, gold, entry] of qs) {
    const r = JSON.parse(ragask('ask', q, '--json'));
    // the line shown first: the answer's sentence where a short answer is given, else the first lead
    const c = r.answer.source?.citation ?? r.answer.leads[0]?.citation;
    const line = r.answer.sentence ?? r.answer.leads[0]?.snippet;
    if (holds(line, gold) || holds(r.answer.value, gold)) visible++;
    if (r.answer.value !== null) {
      if (holds(r.answer.value, gold) || holds(gold, r.answer.value)) right++;
      else {
        wrong++;
        process.stdout.write(
          `  wrong short answer (${kind}): ${q} → ${r.answer.value} (${r.answer.confidence.label})\n`,
        );
      }
    }
    const good =
      c &&
      pages.includes(c.document) &&
      (!entry || c.document !== 'Services' || c.entry?.term === entry) &&
      !/[0-9a-f]{32}|^Platform Operations : /.test([c.document, ...c.heading_path].join(' ')) &&
      pageLink.test(c.url ?? '');
    if (good) ok++;
    else process.stdout.write(`  miss (${kind}): ${q} → ${c ? `${c.document} ${c.url}` : 'no line'}\n`);
  }
  process.stdout.write(
    `${kind}: ${ok} of ${qs.length} first lines cite the page's own title, path and link; the first line holds the answer for ${visible}; short answers ${right} right, ${wrong} wrong\n`,
  );
}
fs.rmSync(data, { recursive: true, force: true });
