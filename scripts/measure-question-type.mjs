#!/usr/bin/env node
// Measures a learned question type against the cue lists of src/engine/answer/data/answer-types.json.
//   node scripts/measure-question-type.mjs --data ../shared/datasets --set <folder> [--set <folder> …]
// The learned type: a multinomial logistic regression on the question's MiniLM sentence embedding (the
// vector retrieval already computes), trained on TREC's question types (qtype-trec, NUM → number,
// ENTY:termeq/techmeth/lang/product/instru → identifier, the rest → any) and on the other tuning sets'
// questions, labelled by the kind their gold answers fit (typeFit = 1: number, path, identifier, or a
// command for a how-to). Judged leave one set out: for each question of the held-out set, the gold
// answers' fit to the type chosen (+1 fits, −1 the type would pass the gold answer over, 0 'any').
// Needs a build (npm run build) and the MiniLM model (npm run models).
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { Encoder } from '../dist/models/encoder.js';
import { expectedType, typeFit } from '../dist/engine/answer/answer-type.js';

const TYPES = ['any', 'number', 'identifier', 'command', 'path'];
const TREC_IDENTIFIER = new Set(['ENTY:termeq', 'ENTY:techmeth', 'ENTY:lang', 'ENTY:product', 'ENTY:instru']);
const TREC_WEIGHT = 1;
const SET_WEIGHT = 3; // a tuning set's question counts as three TREC questions (they are few and on topic)
const L2 = 1;
const STEPS = 300;
const RATE = 5;

const { values } = parseArgs({ options: { data: { type: 'string' }, set: { type: 'string', multiple: true } } });
if (!values.data || !values.set?.length) {
  console.error('usage: measure-question-type.mjs --data <datasets folder> --set <folder> [--set <folder> …]');
  process.exit(2);
}
const readRows = (file) => fs.readFileSync(file, 'utf8').trim().split('\n').map(JSON.parse);

/** The kind a tuning question's gold answers fit, or null for an unanswerable one. */
function answerKind(row) {
  if (!row.answers?.length) return null;
  const fits = (t) => row.answers.some((a) => typeFit(t, a) === 1);
  if (fits('number')) return 'number';
  if (fits('path')) return 'path';
  if (fits('identifier') || fits('command')) return row.type === 'procedure' ? 'command' : 'identifier';
  return 'any';
}
const trecKind = (r) => (r.coarse === 'NUM' ? 'number' : TREC_IDENTIFIER.has(r.fine) ? 'identifier' : 'any');

/** Softmax regression by full-batch gradient descent, weighted rows, L2 on the weights. */
function fitSoftmax(xs, ys, ws) {
  const d = xs[0].length + 1;
  const k = TYPES.length;
  const W = Array.from({ length: k }, () => new Float64Array(d));
  const total = ws.reduce((a, b) => a + b, 0);
  for (let step = 0; step < STEPS; step++) {
    const grad = Array.from({ length: k }, () => new Float64Array(d));
    xs.forEach((x, i) => {
      const p = probabilities(W, x);
      for (let c = 0; c < k; c++) {
        const g = ((p[c] - (ys[i] === c ? 1 : 0)) * ws[i]) / total;
        for (let j = 0; j < x.length; j++) grad[c][j] += g * x[j];
        grad[c][d - 1] += g;
      }
    });
    for (let c = 0; c < k; c++)
      for (let j = 0; j < d; j++) W[c][j] -= RATE * (grad[c][j] + (j < d - 1 ? (L2 * W[c][j]) / xs.length : 0));
  }
  return W;
}
function probabilities(W, x) {
  const z = W.map((w) => x.reduce((s, v, j) => s + v * w[j], w[w.length - 1]));
  const m = Math.max(...z);
  const e = z.map((v) => Math.exp(v - m));
  const sum = e.reduce((a, b) => a + b, 0);
  return e.map((v) => v / sum);
}

const encoder = await Encoder.load({ modelsDir: 'models', model: 'all-MiniLM-L6-v2', variant: 'int8', threads: 2 });
const embed = async (rows) => (await encoder.encode(rows.map((r) => r.question))).map((v) => Array.from(v));
const trec = readRows(path.join(values.data, 'qtype-trec', 'train.jsonl'));
const trecX = await embed(trec);
const sets = [];
for (const folder of values.set) {
  const rows = readRows(path.join(folder, 'questions.jsonl')).filter((r) => answerKind(r) !== null);
  sets.push({ name: path.basename(folder), rows, xs: await embed(rows) });
}
const fitOf = (row, type) => (type === 'any' ? 0 : Math.max(...row.answers.map((a) => typeFit(type, a))));
const tally = () => ({ fits: 0, passesOver: 0 });
const totals = { learned: tally(), cues: tally() };
for (const held of sets) {
  const train = sets.filter((s) => s !== held);
  const xs = [...trecX, ...train.flatMap((s) => s.xs)];
  const ys = [...trec.map(trecKind), ...train.flatMap((s) => s.rows.map(answerKind))].map((t) => TYPES.indexOf(t));
  const ws = [...trec.map(() => TREC_WEIGHT), ...train.flatMap((s) => s.rows.map(() => SET_WEIGHT))];
  const W = fitSoftmax(xs, ys, ws);
  const row = { learned: tally(), cues: tally() };
  held.rows.forEach((r, i) => {
    const p = probabilities(W, held.xs[i]);
    const chosen = { learned: TYPES[p.indexOf(Math.max(...p))], cues: expectedType(r.question) };
    for (const who of ['learned', 'cues']) {
      const f = fitOf(r, chosen[who]);
      if (f === 1) row[who].fits++;
      if (f === -1) row[who].passesOver++;
    }
  });
  for (const who of ['learned', 'cues']) {
    totals[who].fits += row[who].fits;
    totals[who].passesOver += row[who].passesOver;
  }
  console.log(
    `${held.name.padEnd(22)} learned +${row.learned.fits} / −${row.learned.passesOver}   cues +${row.cues.fits} / −${row.cues.passesOver}   (${held.rows.length} answerable)`,
  );
}
console.log(
  `${'all'.padEnd(22)} learned +${totals.learned.fits} / −${totals.learned.passesOver}   cues +${totals.cues.fits} / −${totals.cues.passesOver}`,
);
