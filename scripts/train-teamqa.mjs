#!/usr/bin/env node
// Teaches ragask's reader to read team documents, from teamqa (../shared/datasets/teamqa), in one
// command that resumes where it stopped:
//
//   npm run train-teamqa [-- --data ../shared/datasets --out .tmp/teamqa --no-folds --ship --sets a,b]
//
// 1. rows: `ragask rows` runs every teamqa question (and those written over its sources,
//    data/teamqa-extra, with `--questions`) through the engine as it answers (ingest,
//    retrieval, hops) and writes the passages its reader read and every candidate line;
// 2. folds: for each fold of FOLDS, on the other fold's sets,
//    - scripts/train_teamqa.py fine-tunes the phase-1 reader (beside a sample of SQuAD 1.1 train) and
//      packages it as models/reader-teamqa-<fold> (never committed); `ragask eval` then measures each
//      held-out set with its fold's reader (OUT/eval/<set>.json; pool them with scripts/teamqa-report.mjs);
//    - scripts/train_teamqa_lines.py trains the line scorer and writes its logits for the held-out
//      sets' candidate lines; scripts/measure_teamqa_lines.py then fits the line ranker with them,
//      leave one set out (OUT/lines.md);
//    so every figure reported for a set comes from weights that never saw it;
// 2b. --teacher: for each fold, all-mpnet-base-v2 with new heads trained on the other fold (the teacher,
//    never shipped), then the reader's recipe with the teacher's logits distilled into it
//    (models/reader-<OUT's name>-kd-<fold>), each held-out set measured with it (OUT/eval-kd/<set>.json);
// 3. --ship: the reader's recipe on all thirteen sets, as a candidate models/reader-<OUT's name>-all,
//    measured (RAGASK_READER_MODEL) before it is copied over models/reader-minilm; with --teacher, a
//    teacher on all thirteen first and the candidate its student (models/reader-<OUT's name>-kd-all).
// --embedder instead measures the sentence encoder fine-tuned on teamqa (scripts/teamqa-embedder.mjs);
// --answer-type measures a learned answer type against the cue lists (scripts/teamqa-answer-type.mjs).
// Each step skips what its output already holds; a killed reader training resumes from its checkpoint.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { phase1Reader } from './phase1-reader.mjs';
import { measureEmbedder } from './teamqa-embedder.mjs';
import { trainAnswerType } from './teamqa-answer-type.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
/** Two folds of the thirteen sets, each with manuals, manual pages and a handbook (leave one fold out). */
const FOLDS = {
  a: ['lighttpd', 'engpractices', 'gdsway', 'opsman', 'opsman2', 'haproxy'],
  b: ['bind9', 'exim', 'postfix', 'rsyslog', 'playbook', 'runbooks', 'python'],
};

const argv = process.argv.slice(2);
if (argv.includes('--help')) {
  process.stdout.write(`npm run train-teamqa [-- options]
  --data DIR     the shared datasets folder (default ../shared/datasets): teamqa/ and reader-squad11-train/
  --out DIR      where rows, checkpoints and evaluations go (default .tmp/teamqa)
  --sets a,b     only these teamqa sets (a smoke run, with --no-folds)
  --no-folds     skip the leave-one-fold-out readers and their evaluation
  --fold a|b     only this fold held out: rows of the other fold's sets, its reader, its held-out
                 evaluation (no line scorer: that needs both folds' rows)
  --ship         also train the reader on every set, as the candidate models/reader-<OUT's name>-all
  --teacher      the teacher lever instead of step 2's readers: per fold, all-mpnet-base-v2 trained on
                 the other fold, its logits on the teamqa windows distilled into the reader (on SQuAD's
                 too with --distil-squad), each held-out set measured; with --ship, the candidate is
                 taught by a teacher trained on every set (--teacher --ship --no-folds: that alone)
  --device D     auto (default: a GPU where torch sees one), cpu or cuda: passed to the trainings
  --no-extra     leave out the questions written over teamqa's sources (data/teamqa-extra)
  --answer-type  only the learned answer type, leave one set out, against the cue lists
                 (OUT/answer-type.md; not kept)
  --embedder     only the sentence encoder fine-tuned on teamqa, leave one fold out (OUT/embedder.md; not kept)
  --epochs N, --squad N, --limit N, --threads N, --distil-squad   passed to scripts/train_teamqa.py
`);
  process.exit(0);
}
const flag = (name) => {
  const i = argv.indexOf(name);
  if (i >= 0) argv.splice(i, 1);
  return i >= 0;
};
const take = (name, fallback) => {
  const i = argv.indexOf(name);
  if (i < 0) return fallback;
  const v = argv[i + 1];
  argv.splice(i, 2);
  return v;
};
const noFolds = flag('--no-folds');
const ship = flag('--ship');
const embedder = flag('--embedder');
const answerType = flag('--answer-type');
const noExtra = flag('--no-extra');
const teacher = flag('--teacher');
const data = path.resolve(take('--data', path.join(ROOT, '..', 'shared', 'datasets')));
const out = path.resolve(take('--out', path.join(ROOT, '.tmp', 'teamqa')));
const onlySets = take('--sets', null);
const onlyFold = take('--fold', null);
if (onlyFold && !FOLDS[onlyFold]) {
  process.stderr.write(`[train-teamqa] error: --fold ${onlyFold}: give one of ${Object.keys(FOLDS).join(', ')}\n`);
  process.exit(1);
}
const teamqa = path.join(data, 'teamqa');
const fail = (msg) => {
  process.stderr.write(`[train-teamqa] error: ${msg}\n`);
  process.exit(1);
};
const say = (msg) => process.stderr.write(`[train-teamqa] ${msg}\n`);
const allSets = Object.values(FOLDS).flat();
/** The sets whose rows are built: --sets, else the sets --fold trains on, else all thirteen. */
const sets = onlySets ? onlySets.split(',') : onlyFold ? allSets.filter((s) => !FOLDS[onlyFold].includes(s)) : allSets;
for (const s of sets)
  if (!fs.existsSync(path.join(teamqa, s, 'questions.jsonl')))
    fail(`--data ${data}: no teamqa/${s}/questions.jsonl; point --data at the shared datasets folder`);
fs.mkdirSync(out, { recursive: true });

const ragask = (args, env = {}) => {
  const r = spawnSync(process.execPath, [path.join(ROOT, 'bin', 'ragask.js'), ...args], {
    stdio: 'inherit',
    env: { ...process.env, ...env },
  });
  if (r.status !== 0) fail(`ragask ${args[0]} exited with ${r.status}; rerun the same command to resume`);
};

/**
 * The upstream files of all-MiniLM-L6-v2 (safetensors, tokenizer, config), through the pinned path
 * `npm run models` takes; returns the folder and the python of its venv.
 */
function fetchUpstream(encoder = null) {
  const dir = path.join(out, encoder ?? 'upstream');
  const fetched = spawnSync(
    process.execPath,
    [
      path.join(ROOT, 'scripts', 'fetch-models.mjs'),
      `--upstream-to=${dir}`,
      ...(encoder ? [`--encoder=${encoder}`] : []),
    ],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
      encoding: 'utf8',
    },
  );
  if (fetched.status !== 0) fail(`could not fetch the upstream ${encoder ?? 'all-MiniLM-L6-v2'} files (see above)`);
  return { dir, python: fetched.stdout.trim().split('\n').pop() };
}

// The encoder lever stands alone: its own stores, trainings and line dumps (scripts/teamqa-embedder.mjs).
if (embedder) {
  const up = fetchUpstream();
  measureEmbedder({ root: ROOT, out, teamqa, folds: FOLDS, python: up.python, upstream: up.dir, ragask, fail });
  process.exit(0);
}

// The answer type stands alone too: question vectors and gold answers, no store (scripts/teamqa-answer-type.mjs).
if (answerType) {
  const up = fetchUpstream();
  await trainAnswerType({ root: ROOT, out, data, sets, python: up.python, fail });
  process.exit(0);
}

/** Questions written over teamqa's sources (data/teamqa-extra/<set>), trained on with their set; --no-extra leaves them out. */
const extraQuestions = (set) => path.join(ROOT, 'data', 'teamqa-extra', set, 'questions.jsonl');
const countLines = (file) =>
  fs.existsSync(file)
    ? fs
        .readFileSync(file, 'utf8')
        .split('\n')
        .filter((l) => l.trim()).length
    : 0;

/** Step 1: rows per set, its own questions and the extra ones (a file with every question is not run again). */
function rowsOf(set) {
  const file = path.join(out, 'rows', `${set}.jsonl`);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  if (countLines(file) < countLines(path.join(teamqa, set, 'questions.jsonl')))
    ragask(['rows', '--dataset', path.join(teamqa, set), '--out', file]);
  const extra = extraQuestions(set);
  if (noExtra || !fs.existsSync(extra)) return [file];
  const extraFile = path.join(out, 'rows', `${set}-extra.jsonl`);
  if (countLines(extraFile) < countLines(extra))
    ragask(['rows', '--dataset', path.join(teamqa, set), '--questions', extra, '--out', extraFile]);
  return [file, extraFile];
}
const rowFiles = sets.flatMap(rowsOf);
const rows = path.join(out, 'rows.jsonl');
fs.writeFileSync(rows, rowFiles.map((f) => fs.readFileSync(f, 'utf8')).join(''));
say(`rows of ${sets.length} sets in ${rows}`);

// The upstream tokenizer and config, and the export venv's python.
const { dir: upstream, python } = fetchUpstream();

const train = (name, holdOut, pkg, extra = []) => {
  const dir = path.join(out, name);
  if (fs.existsSync(path.join(pkg, 'ragask-model.json')) && fs.existsSync(path.join(dir, 'report.json'))) {
    say(`${name}: packaged already in ${pkg}`);
    return;
  }
  const args = [path.join(ROOT, 'scripts', 'train_teamqa.py'), '--rows', rows, '--base', upstream, '--data', data];
  args.push(
    '--init',
    phase1Reader(ROOT, out, fail),
    '--out',
    dir,
    '--package',
    pkg,
    '--threads',
    String(os.availableParallelism()),
  );
  if (holdOut.length) args.push('--hold-out', holdOut.join(','));
  const r = spawnSync(python, [...args, ...extra, '--bf16', ...argv], { stdio: 'inherit' });
  if (r.status !== 0)
    fail(`scripts/train_teamqa.py (${name}) exited with ${r.status}; rerun to resume from its checkpoint`);
};

/** The held-out sets of a fold, each measured end to end with `reader` (skipped where its report exists). */
function evaluateHeld(reader, held, folder) {
  for (const set of held.filter((s) => onlyFold || sets.includes(s))) {
    const report = path.join(out, folder, `${set}.json`);
    if (fs.existsSync(report)) continue;
    fs.mkdirSync(path.dirname(report), { recursive: true });
    ragask(['eval', '--dataset', path.join(teamqa, set), '--modes', 'multihop', '--json', report], {
      RAGASK_READER_MODEL: reader,
    });
  }
}

/**
 * A fold's teacher: all-mpnet-base-v2 with new heads on the other fold's rows (teamqa once, 1,000 SQuAD rows,
 * lr 5e-5: docs/benchmarks-history.md, "The teacher on team documents"), measured on the fold and never
 * exported. Returns its checkpoint, which the student's training reads.
 */
function teacherOf(fold, held, mpnet) {
  const dir = path.join(out, `teacher-${fold}`);
  const checkpoint = path.join(dir, 'checkpoint.pt');
  if (fs.existsSync(path.join(dir, 'report.json'))) return checkpoint;
  const args = [path.join(ROOT, 'scripts', 'train_teamqa.py'), '--rows', rows, '--base', upstream, '--data', data];
  args.push('--out', dir, '--encoder', 'mpnet', '--mpnet', mpnet, '--teamqa-repeats', '1', '--lr', '5e-5');
  if (held.length) args.push('--hold-out', held.join(','));
  args.push('--threads', String(os.availableParallelism()));
  const r = spawnSync(python, [...args, '--bf16', ...argv], { stdio: 'inherit' });
  if (r.status !== 0) fail(`the teacher of fold ${fold} exited with ${r.status}; rerun to resume from its checkpoint`);
  return checkpoint;
}

/** The line scorer trained without a fold's sets, and its logits for their candidate lines. */
function lineScores(fold, held) {
  const scores = path.join(out, `line-scores-${fold}.jsonl`);
  if (fs.existsSync(scores)) return;
  const args = [path.join(ROOT, 'scripts', 'train_teamqa_lines.py'), '--rows', rows, '--base', upstream];
  args.push('--out', path.join(out, `line-scorer-${fold}`), '--hold-out', held.join(','), '--score-held-out', scores);
  const r = spawnSync(python, [...args, '--epochs', '1.5', '--bf16', '--no-export'], { stdio: 'inherit' });
  if (r.status !== 0) fail(`scripts/train_teamqa_lines.py (${fold}) exited with ${r.status}; rerun to start it again`);
}

/** The line ranker with and without the scorer's held-out logits, leave one set out. */
function measureLines() {
  const files = Object.keys(FOLDS).map((fold) => path.join(out, `line-scores-${fold}.jsonl`));
  const r = spawnSync(python, [path.join(ROOT, 'scripts', 'measure_teamqa_lines.py'), rows, ...files], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  if (r.status !== 0) fail('scripts/measure_teamqa_lines.py failed (see above)');
  fs.writeFileSync(path.join(out, 'lines.md'), r.stdout);
  process.stdout.write(r.stdout);
}

// Step 2b: the teacher lever, leave one fold out: each fold's teacher, its student, the student measured.
if (teacher && !noFolds) {
  const mpnet = fetchUpstream('all-mpnet-base-v2').dir;
  for (const [fold, held] of Object.entries(FOLDS)) {
    if (onlyFold && fold !== onlyFold) continue;
    const checkpoint = teacherOf(fold, held, mpnet);
    const name = `reader-${path.basename(out)}-kd-${fold}`;
    train(name, held, path.join(ROOT, 'models', name), ['--teacher', checkpoint, '--mpnet', mpnet]);
    evaluateHeld(name, held, 'eval-kd');
  }
}
// Step 2: leave one fold out, then each held-out set measured with the reader that never saw it.
if (!noFolds && !teacher) {
  for (const [fold, held] of Object.entries(FOLDS)) {
    if (onlyFold && fold !== onlyFold) continue;
    // named after OUT, so a variant's run (--out .tmp/teamqa-noextra) does not overwrite another's reader
    const name = `reader-${path.basename(out)}-${fold}`;
    train(name, held, path.join(ROOT, 'models', name));
    evaluateHeld(name, held, 'eval');
    if (!onlyFold) lineScores(fold, held);
  }
  if (!onlyFold) measureLines();
}
// Step 3: the shipped reader, on every set.
// A candidate beside the shipped reader, measured before it replaces it (RAGASK_READER_MODEL=<name>).
// With --teacher, a teacher trained on every set first, its logits distilled into the candidate.
if (ship) {
  const name = `reader-${path.basename(out)}-${teacher ? 'kd-' : ''}all`;
  const mpnet = teacher ? fetchUpstream('all-mpnet-base-v2').dir : null;
  const taught = mpnet ? ['--teacher', teacherOf('all', [], mpnet), '--mpnet', mpnet] : [];
  train(name, [], path.join(ROOT, 'models', name), taught);
  say(
    `models/${name} written: measure it with RAGASK_READER_MODEL=${name}; to ship it, copy it over models/reader-minilm and regenerate the parity fixture with scripts/train_reader.py --from-onnx (see MODEL.md)`,
  );
}
