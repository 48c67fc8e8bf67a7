#!/usr/bin/env node
// Measures whether Helpful / Not helpful feedback helps the rerank head (issue 21 §3). No real
// feedback exists on the shared sets, so it is simulated by a stated protocol: a person reads the
// reply to each question of a dataset (as `ragask eval` makes it, cosine rerank) and clicks Helpful
// when its first line holds the gold answer (visible@1), else Not helpful. The questions are split
// in two folds by id; the head is trained on the store's inverse-cloze pairs alone, and on the same
// pairs plus one (question → the chunk of the first line shown) pair per Helpful click of the other
// fold, repeated REPEAT times; each head reranks the held-out fold, and all-support@5 and visible@1
// are compared with the plain cosine. Stores are the ones `ragask eval` built; never run it on
// teamdocs-git (report-only).
//
//   npm run build && node scripts/measure-feedback-head.mjs ../shared/datasets/teamdocs-apache .tmp/teamdocs-manpages
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dist = (m) => import(path.join(ROOT, 'dist', m));
const { loadConfig } = await dist('config.js');
const { openCore } = await dist('core.js');
const { evalEngine } = await dist('cli/commands/eval.js');
const { Retriever } = await dist('engine/retrieve.js');
const { HeadScorer, trainHead } = await dist('engine/reranker-head.js');
const { makeTrainingPairs } = await dist('engine/reranker-pairs.js');
const { cosineScorer } = await dist('engine/rerank.js');
const { LOCAL } = await dist('store/access.js');
const { loadDataset } = await dist('eval/dataset.js');
const { shownReply, visibleAt } = await dist('eval/visible.js');
const { allSupportAt } = await dist('eval/metrics.js');

const ICT_PAIRS = 3000;
const EPOCHS = 3;
/** Each Helpful click counts this many times among the inverse-cloze pairs. */
const REPEAT = 5;

const cacheRoot = process.env.RAGASK_CACHE_DIR ?? path.join(os.homedir(), '.cache', 'ragask');
const datasets = process.argv.slice(2);
if (!datasets.length || datasets.some((d) => /teamdocs-git/.test(d))) {
  process.stderr.write(
    'usage: node scripts/measure-feedback-head.mjs DATASET_DIR [...] (not teamdocs-git: report-only)\n',
  );
  process.exit(2);
}

function storeOf(dataset) {
  const name = path.basename(path.resolve(dataset));
  const evalDir = path.join(cacheRoot, 'eval');
  const dir = fs
    .readdirSync(evalDir)
    .filter((d) => d.startsWith(`${name}-`))
    .map((d) => path.join(evalDir, d))
    .sort((a, b) => fs.statSync(b).mtimeMs - fs.statSync(a).mtimeMs)[0];
  if (!dir) throw new Error(`${dataset}: no eval store; run npx ragask eval --dataset ${dataset} first`);
  return dir;
}

/** The engine as `ragask eval` runs it, reranking with `scorer`. */
function engineWith(core, config, scorer) {
  return evalEngine(core, config, new Retriever({ store: core.store, encoder: core.encoder, scorer }));
}

async function measure(engine, dataset, questions) {
  let support = 0;
  let visible = 0;
  for (const q of questions) {
    const r = await engine.run(q.question, LOCAL);
    const passages = [...new Set(r.evidence.map((s) => dataset.passageOf(s.citation.source)))];
    support += allSupportAt(passages, q.supporting, 5);
    visible += visibleAt(shownReply(r), q.answers, 1) ? 1 : 0;
  }
  return { support: support / questions.length, visible: visible / questions.length };
}

for (const dir of datasets) {
  const dataset = loadDataset(path.resolve(dir));
  const store = storeOf(dir);
  const config = loadConfig({ ...process.env, RAGASK_DATA_DIR: store, RAGASK_QUERY_CACHE_TTL_S: '0' });
  const core = await openCore(config);
  // the simulated clicks: Helpful when the first line of the cosine reply holds the answer
  const plain = engineWith(core, config, cosineScorer);
  const clicks = [];
  for (const q of dataset.questions) {
    const r = await plain.run(q.question, LOCAL);
    const shown = shownReply(r);
    const first = r.answer.source ?? r.answer.leads[0] ?? r.evidence[0];
    clicks.push({ q, helpful: visibleAt(shown, q.answers, 1), chunkId: first?.chunkId ?? null });
  }
  const ict = await makeTrainingPairs(core.store, core.encoder, ICT_PAIRS, 7);
  const folds = [0, 1].map((f) => dataset.questions.filter((_, i) => i % 2 === f));
  const rows = { cosine: [], head: [], 'head + feedback': [] };
  for (const f of [0, 1]) {
    const held = folds[f];
    const given = clicks.filter((c, i) => i % 2 !== f && c.helpful && c.chunkId !== null);
    const qv = await core.encoder.encode(given.map((c) => c.q.question));
    const windows = await core.store.vectors.windowsOfChunks(given.map((c) => c.chunkId));
    const feedback = given.flatMap((c, i) =>
      windows
        .filter((w) => w.chunkId === c.chunkId)
        .flatMap((w) => Array.from({ length: REPEAT }, () => ({ q: qv[i], d: w.vector }))),
    );
    const head = new HeadScorer(trainHead(ict, core.encoder.id, { epochs: EPOCHS }));
    const withFeedback = new HeadScorer(trainHead([...ict, ...feedback], core.encoder.id, { epochs: EPOCHS }));
    rows.cosine.push(await measure(plain, dataset, held));
    rows.head.push(await measure(engineWith(core, config, head), dataset, held));
    rows['head + feedback'].push(await measure(engineWith(core, config, withFeedback), dataset, held));
    process.stderr.write(
      `${dataset.name} fold ${f}: ${given.length} Helpful clicks (${feedback.length} pairs) beside ${ict.length} inverse-cloze pairs\n`,
    );
  }
  await core.close();
  const n = folds.map((x) => x.length);
  const avg = (xs, k) => (xs[0][k] * n[0] + xs[1][k] * n[1]) / (n[0] + n[1]);
  const helpful = clicks.filter((c) => c.helpful).length;
  process.stdout.write(
    `\n${dataset.name}: ${dataset.questions.length} questions, ${helpful} Helpful and ${dataset.questions.length - helpful} Not helpful (simulated), two folds\n`,
  );
  process.stdout.write('| rerank | all-support@5 | visible@1 |\n| --- | --- | --- |\n');
  for (const [name, xs] of Object.entries(rows))
    process.stdout.write(`| ${name} | ${avg(xs, 'support').toFixed(3)} | ${avg(xs, 'visible').toFixed(3)} |\n`);
}
