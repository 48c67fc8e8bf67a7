#!/usr/bin/env node
// The gap report's grouping against known topics: data/gaps/topics.json (6 topics × 10 phrasings)
// encoded with the default encoder and grouped at each threshold; the adjusted Rand index (Hubert &
// Arabie) against the topics. TOPIC_COSINE in src/engine/gaps.ts is chosen here, never on the tests.
//
//   npm run build && node scripts/measure-gaps.mjs
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { Encoder } = await import(path.join(root, 'dist', 'models', 'encoder.js'));
const { groupByTopic } = await import(path.join(root, 'dist', 'engine', 'gaps.js'));
const { topics } = JSON.parse(fs.readFileSync(path.join(root, 'data', 'gaps', 'topics.json'), 'utf8'));
const questions = Object.values(topics).flat();
const truth = Object.values(topics).flatMap((qs, k) => qs.map(() => k));

const choose2 = (n) => (n * (n - 1)) / 2;
function ari(a, b) {
  const pairs = new Map();
  const rows = new Map();
  const cols = new Map();
  a.forEach((x, i) => {
    const key = `${x},${b[i]}`;
    pairs.set(key, (pairs.get(key) ?? 0) + 1);
    rows.set(x, (rows.get(x) ?? 0) + 1);
    cols.set(b[i], (cols.get(b[i]) ?? 0) + 1);
  });
  const index = [...pairs.values()].reduce((s, n) => s + choose2(n), 0);
  const sr = [...rows.values()].reduce((s, n) => s + choose2(n), 0);
  const sc = [...cols.values()].reduce((s, n) => s + choose2(n), 0);
  const expected = (sr * sc) / choose2(a.length);
  return (index - expected) / ((sr + sc) / 2 - expected);
}

const encoder = await Encoder.load({
  modelsDir: path.join(root, 'models'),
  model: 'all-MiniLM-L6-v2',
  variant: 'int8',
  threads: 2,
});
const vectors = await encoder.encode(questions);
await encoder.release();
process.stdout.write('threshold  groups  ARI\n');
for (const t of [0.1, 0.125, 0.15, 0.175, 0.2, 0.25, 0.3, 0.4, 0.5]) {
  const of = groupByTopic(vectors, t);
  process.stdout.write(
    `${t.toFixed(3).padStart(9)}  ${String(new Set(of).size).padStart(6)}  ${ari(truth, of).toFixed(3)}\n`,
  );
}
