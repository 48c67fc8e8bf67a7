#!/usr/bin/env node
// Measures the answer writer's checker alone (src/engine/writer/check.ts), on written answers with
// planted sentences, as precision and recall, and sweeps the support threshold. For every question
// of a dataset the engine's top evidence is the reply's evidence list; from it the script writes:
//   supported:   a sentence of the cited snippet, whole or cut at its first clause (what a faithful
//                writer copies or shortens), citing it;
//   unsupported: (a) that sentence with one number changed, (b) a sentence of another document's
//                snippet cited as if from this one, (c) a sentence from another question's evidence.
// A sentence is "dropped" when the checker does not keep it. The stores are the ones `ragask eval`
// built (run it on each dataset first). Fit the threshold on tuning sets; report on the others.
//
//   npm run build && node scripts/measure-writer-checker.mjs [--json F] DATASET_DIR [...]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { loadConfig } = await import(path.join(ROOT, 'dist', 'config.js'));
const { openCore } = await import(path.join(ROOT, 'dist', 'core.js'));
const { checkWritten } = await import(path.join(ROOT, 'dist', 'engine', 'writer', 'check.js'));
const { encoderJudge } = await import(path.join(ROOT, 'dist', 'engine', 'writer', 'support.js'));
const { sentencesOf } = await import(path.join(ROOT, 'dist', 'models', 'nlp.js'));
const { LOCAL } = await import(path.join(ROOT, 'dist', 'store', 'access.js'));

/** The reply's evidence list the writer sees (the CLI's default --k). */
const EVIDENCE = 5;
const THRESHOLDS = [0.3, 0.35, 0.4, 0.45, 0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8];
/** Shortest sentence worth planting: a few words of content. */
const MIN_WORDS = 5;

const args = process.argv.slice(2);
const jsonAt = args.indexOf('--json');
const jsonFile = jsonAt >= 0 ? args.splice(jsonAt, 2)[1] : null;
if (!args.length) {
  process.stderr.write('usage: node scripts/measure-writer-checker.mjs [--json F] DATASET_DIR [...]\n');
  process.exit(2);
}

function evalStore(dataset) {
  const cacheRoot = process.env.RAGASK_CACHE_DIR ?? path.join(os.homedir(), '.cache', 'ragask');
  const evalDir = path.join(cacheRoot, 'eval');
  const name = path.basename(path.resolve(dataset));
  const store = fs.existsSync(evalDir)
    ? fs
        .readdirSync(evalDir)
        .filter((d) => d.startsWith(`${name}-`))
        .map((d) => path.join(evalDir, d))
        .sort((a, b) => fs.statSync(b).mtimeMs - fs.statSync(a).mtimeMs)[0]
    : undefined;
  if (!store) {
    process.stderr.write(
      `${dataset}: no eval store under ${evalDir}; run \`npx ragask eval --dataset ${dataset}\` first\n`,
    );
    process.exit(1);
  }
  return store;
}

/** Sentences of a snippet worth planting: whole, with a few words, no ellipsis of the window's cut. */
const plantable = (text) =>
  sentencesOf(text)
    .map((s) => s.text.replace(/^…|…$/g, '').trim())
    .filter((s) => s.split(/\s+/).length >= MIN_WORDS);

/** A number of the sentence changed (the first one, plus one), or null when it has none. */
function withOtherNumber(sentence) {
  const m = /\d+/.exec(sentence);
  if (!m) return null;
  return `${sentence.slice(0, m.index)}${Number(m[0]) + 1}${sentence.slice(m.index + m[0].length)}`;
}

const cite = (s, n) => `${s.replace(/[.!?]*$/, '')} [${n}].`;

/** The planted sentences of one question: [{ text, supported, kind }]. */
function planted(evidence, elsewhere, pick) {
  const out = [];
  const first = evidence[0];
  const sentences = first ? plantable(first.text) : [];
  if (!sentences.length) return out;
  const s = sentences[pick % sentences.length];
  out.push({ text: cite(s, 1), supported: true, kind: 'copied' });
  const clause = s.split(/[,;:]/)[0];
  if (clause && clause.split(/\s+/).length >= MIN_WORDS && clause !== s)
    out.push({ text: cite(clause, 1), supported: true, kind: 'shortened' });
  const changed = withOtherNumber(s);
  if (changed) out.push({ text: cite(changed, 1), supported: false, kind: 'number_changed' });
  const other = evidence.find((e, i) => i > 0 && e.docId !== first.docId && plantable(e.text).length);
  if (other) out.push({ text: cite(plantable(other.text)[0], 1), supported: false, kind: 'other_source' });
  if (elsewhere) out.push({ text: cite(elsewhere, 1), supported: false, kind: 'other_question' });
  return out;
}

async function measure(dataset) {
  const questions = fs
    .readFileSync(path.join(dataset, 'questions.jsonl'), 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l).question);
  const core = await openCore(loadConfig({ ...process.env, RAGASK_DATA_DIR: evalStore(dataset) }));
  const judge = encoderJudge(core.encoder);
  const rows = [];
  let previous = null;
  try {
    for (const [i, q] of questions.entries()) {
      const r = await core.engine.run(q, LOCAL);
      const evidence = r.evidence.slice(0, EVIDENCE);
      const elsewhere = previous ? plantable(previous.text)[0] : null;
      for (const p of planted(evidence, elsewhere, i)) {
        // the checker's verdict before the support threshold, and the support itself
        const [checked] = await checkWritten(p.text, evidence, judge, -1);
        rows.push({ ...p, passedValues: checked?.kept ?? false, support: checked?.support ?? null });
      }
      previous = evidence[0] ?? previous;
      process.stderr.write(`\r${path.basename(dataset)}: ${i + 1}/${questions.length}`);
    }
  } finally {
    await core.close();
  }
  process.stderr.write('\n');
  return rows;
}

/** Share of supported sentences kept, of unsupported ones dropped, at a threshold. */
function rates(rows, threshold) {
  const kept = (r) => r.passedValues && r.support !== null && r.support >= threshold;
  const supported = rows.filter((r) => r.supported);
  const unsupported = rows.filter((r) => !r.supported);
  const byKind = {};
  for (const r of unsupported) {
    byKind[r.kind] ??= { n: 0, dropped: 0 };
    byKind[r.kind].n++;
    if (!kept(r)) byKind[r.kind].dropped++;
  }
  return {
    threshold,
    supported: supported.length,
    kept_supported: supported.length ? supported.filter(kept).length / supported.length : null,
    unsupported: unsupported.length,
    dropped_unsupported: unsupported.length ? unsupported.filter((r) => !kept(r)).length / unsupported.length : null,
    by_kind: Object.fromEntries(Object.entries(byKind).map(([k, v]) => [k, +(v.dropped / v.n).toFixed(3)])),
  };
}

const report = {};
for (const dataset of args) {
  const rows = await measure(dataset);
  report[path.basename(path.resolve(dataset))] = THRESHOLDS.map((t) => rates(rows, t));
}
for (const [name, sweep] of Object.entries(report)) {
  process.stdout.write(
    `\n${name}\n| threshold | kept supported | dropped unsupported | by kind (dropped) |\n| --- | --- | --- | --- |\n`,
  );
  for (const r of sweep)
    process.stdout.write(
      `| ${r.threshold} | ${r.kept_supported?.toFixed(3)} (${r.supported}) | ${r.dropped_unsupported?.toFixed(3)} (${r.unsupported}) | ${Object.entries(
        r.by_kind,
      )
        .map(([k, v]) => `${k} ${v}`)
        .join(', ')} |\n`,
    );
}
if (jsonFile) fs.writeFileSync(jsonFile, `${JSON.stringify(report, null, 2)}\n`);
