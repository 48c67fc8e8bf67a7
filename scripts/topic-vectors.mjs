#!/usr/bin/env node
// The questions the gap report's topic map learns from, encoded as the report encodes them: teamqa's
// thirteen sets and the questions written over their sources (data/teamqa-extra), each labelled with
// the page it asks about (its first supporting document: one topic of its team's documents). One line
// of JSON per question: set, id, topic, vector (the default encoder, int8, unit length).
// scripts/train_topic_map.py reads it. The gap sets of data/gaps are never written here.
//
//   npm run build && node scripts/topic-vectors.mjs [--teamqa ../shared/datasets/teamqa] [--out .tmp/topics/vectors.jsonl]
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { values } = parseArgs({
  options: {
    teamqa: { type: 'string', default: path.join(root, '..', 'shared', 'datasets', 'teamqa') },
    extra: { type: 'string', default: path.join(root, 'data', 'teamqa-extra') },
    out: { type: 'string', default: path.join(root, '.tmp', 'topics', 'vectors.jsonl') },
  },
});
const { Encoder } = await import(path.join(root, 'dist', 'models', 'encoder.js'));

/** The questions of one set's file that name a page: unanswerables name none and teach no topic. */
function questionsOf(file, set) {
  if (!fs.existsSync(file)) return [];
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.trim())
    .map((line) => JSON.parse(line))
    .filter((q) => q.supporting?.length)
    .map((q) => ({ set, id: q.id, question: q.question, topic: q.supporting[0] }));
}

if (!fs.existsSync(values.teamqa)) {
  process.stderr.write(`--teamqa ${values.teamqa}: no such folder; point it at the teamqa dataset\n`);
  process.exit(2);
}
const sets = fs
  .readdirSync(values.teamqa)
  .filter((s) => fs.existsSync(path.join(values.teamqa, s, 'questions.jsonl')))
  .sort();
const questions = sets.flatMap((set) => [
  ...questionsOf(path.join(values.teamqa, set, 'questions.jsonl'), set),
  ...questionsOf(path.join(values.extra, set, 'questions.jsonl'), set),
]);
const encoder = await Encoder.load({
  modelsDir: path.join(root, 'models'),
  model: 'all-MiniLM-L6-v2',
  variant: 'int8',
  threads: 2,
});
fs.mkdirSync(path.dirname(values.out), { recursive: true });
const out = fs.createWriteStream(values.out);
const BATCH = 64;
for (let i = 0; i < questions.length; i += BATCH) {
  const batch = questions.slice(i, i + BATCH);
  const vectors = await encoder.encode(batch.map((q) => q.question));
  for (const [j, q] of batch.entries())
    out.write(`${JSON.stringify({ ...q, vector: Array.from(vectors[j], (x) => +x.toFixed(6)) })}\n`);
  process.stderr.write(`\rencoded ${Math.min(i + BATCH, questions.length)} / ${questions.length}`);
}
out.end();
await encoder.release();
process.stderr.write(`\n${questions.length} questions of ${sets.length} sets → ${path.relative(root, values.out)}\n`);
