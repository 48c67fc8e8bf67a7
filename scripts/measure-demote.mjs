#!/usr/bin/env node
// Measures what `ragask sources demote` does to a source at a given factor: for every question of
// the datasets, the first hop's top document is demoted (its candidates' scores times the factor)
// and the script reports how often it falls below the best passage of another document (it no
// longer leads) and how often it stays among the top 5 (it is still found). The stores are the ones
// `ragask eval` built (run it on each dataset first).
//
//   npm run build && node scripts/measure-demote.mjs ../shared/datasets/teamdocs-apache ../shared/datasets/hotpotqa-train-100
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { loadConfig } = await import(path.join(ROOT, 'dist', 'config.js'));
const { openCore } = await import(path.join(ROOT, 'dist', 'core.js'));

const FACTORS = [0.8, 0.7, 0.6, 0.5, 0.4, 0.3];
const TOP = 5;
const K = 40;

const cacheRoot = process.env.RAGASK_CACHE_DIR ?? path.join(os.homedir(), '.cache', 'ragask');
const datasets = process.argv.slice(2);
if (!datasets.length) {
  process.stderr.write('usage: node scripts/measure-demote.mjs DATASET_DIR [...]\n');
  process.exit(2);
}
for (const dataset of datasets) {
  const name = path.basename(path.resolve(dataset));
  const evalDir = path.join(cacheRoot, 'eval');
  const store = fs
    .readdirSync(evalDir)
    .filter((d) => d.startsWith(`${name}-`))
    .map((d) => path.join(evalDir, d))
    .sort((a, b) => fs.statSync(b).mtimeMs - fs.statSync(a).mtimeMs)[0];
  if (!store) {
    process.stderr.write(
      `${dataset}: no eval store under ${evalDir}; run \`npx ragask eval --dataset ${dataset}\` first\n`,
    );
    process.exit(1);
  }
  const questions = fs
    .readFileSync(path.join(dataset, 'questions.jsonl'), 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l).question);
  const core = await openCore(loadConfig({ ...process.env, RAGASK_DATA_DIR: store }));
  const access = await core.access.resolve({ kind: 'local' });
  // per question: the top document's best score and the scores of the other documents' best passages
  const rows = [];
  for (const q of questions) {
    const r = await core.retriever.retrieve(q, { k: K, access });
    const best = new Map();
    for (const c of r.candidates) if (!best.has(c.chunk.docId)) best.set(c.chunk.docId, c.score);
    const [top, ...others] = [...best.entries()];
    if (!top || others.length < TOP) continue;
    // every chunk of the top document, demoted, against the others' best passages
    rows.push({ top: top[1], others: others.map(([, s]) => s) });
  }
  await core.close();
  process.stdout.write(
    `${name}: ${rows.length} questions (top document demoted; ${TOP} = still among the top ${TOP} documents)\n`,
  );
  process.stdout.write('  factor  no longer first  still in top 5\n');
  for (const f of FACTORS) {
    const below = rows.filter((r) => r.top * f < r.others[0]).length / rows.length;
    const kept = rows.filter((r) => r.top * f > r.others[TOP - 2]).length / rows.length;
    process.stdout.write(
      `  ${f.toFixed(1).padStart(6)}  ${below.toFixed(2).padStart(15)}  ${kept.toFixed(2).padStart(14)}\n`,
    );
  }
}
