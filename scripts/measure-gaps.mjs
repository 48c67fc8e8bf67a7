#!/usr/bin/env node
// The gap report's grouping against known topics: data/gaps/topics.json and topics-b.json (6 topics
// × 10 phrasings each) encoded with the default encoder and grouped at each threshold, raw and
// centred on their own mean (topicVectors in src/engine/gaps.ts), whole and in smaller draws; the adjusted Rand index
// (Hubert & Arabie) against the topics. The thresholds of src/engine/gaps.ts are chosen on
// topics.json; topics-b.json, written after the choice, checks it. Never on the tests.
//
//   npm run build && node scripts/measure-gaps.mjs
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { Encoder } = await import(path.join(root, 'dist', 'models', 'encoder.js'));
const { groupByTopic, topicVectors } = await import(path.join(root, 'dist', 'engine', 'gaps.js'));
const { rng } = await import(path.join(root, 'dist', 'eval', 'rng.js'));
const sets = ['topics.json', 'topics-b.json']
  .map((f) => path.join(root, 'data', 'gaps', f))
  .filter((f) => fs.existsSync(f))
  .map((f) => ({ name: path.basename(f), topics: JSON.parse(fs.readFileSync(f, 'utf8')).topics }));

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
/** `n` indices of each topic, drawn with a seeded generator. */
function pickPerTopic(truth, n, seed) {
  const rand = rng(seed + 1);
  const out = [];
  for (const k of new Set(truth)) {
    const idx = truth.map((t, i) => (t === k ? i : -1)).filter((i) => i >= 0);
    for (let j = 0; j < n; j++) out.push(idx.splice(Math.floor(rand() * idx.length), 1)[0]);
  }
  return out;
}

const THRESHOLDS = [0.05, 0.075, 0.1, 0.125, 0.15, 0.175, 0.2, 0.25, 0.3];
process.stdout.write(
  `set            vectors   ${THRESHOLDS.map((t) => t.toFixed(3).padStart(6)).join(' ')}   (ARI; groups)\n`,
);
for (const set of sets) {
  const questions = Object.values(set.topics).flat();
  const truth = Object.values(set.topics).flatMap((qs, k) => qs.map(() => k));
  const raw = await encoder.encode(questions);
  for (const [label, prepare] of [
    ['raw', (vs) => vs],
    ['own', (vs) => topicVectors(vs).vectors],
  ]) {
    const cells = THRESHOLDS.map((t) => {
      const of = groupByTopic(prepare(raw), t);
      return `${ari(truth, of).toFixed(3)};${new Set(of).size}`;
    });
    process.stdout.write(`${set.name.padEnd(14)} ${label.padEnd(9)} ${cells.join(' ')}\n`);
    // smaller reports: 100 draws of n questions of each topic (18 and 12), the mean ARI
    for (const n of [3, 2]) {
      const small = THRESHOLDS.map((t) => {
        let sum = 0;
        for (let draw = 0; draw < 100; draw++) {
          const pick = pickPerTopic(truth, n, draw);
          sum += ari(
            pick.map((i) => truth[i]),
            groupByTopic(prepare(pick.map((i) => raw[i])), t),
          );
        }
        return (sum / 100).toFixed(3).padStart(7);
      });
      process.stdout.write(`${''.padEnd(14)} ${`${label} ${n * 6}`.padEnd(9)} ${small.join(' ')}\n`);
    }
  }
}
await encoder.release();
