// The learned answer type (`npm run train-teamqa -- --answer-type`): every teamqa question, and those
// written over its sources (data/teamqa-extra, trained on with their set, never scored), embedded with
// the engine's encoder as the first hop embeds it, each labelled with how its gold answer fits each
// kind of value (the span scorer's own typeFit) and with the kind the cue lists ask for; the sets
// never trained on are only predicted. scripts/train_answer_type.py then fits it leave one set out and
// measures it against the cue lists it would replace (OUT/answer-type.md). Measured, not kept: the cue
// lists ask for the right kind more often (docs/benchmarks-history.md, "A learned answer type").
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const KINDS = ['number', 'identifier', 'path', 'command'];
/** Sets never trained on, only predicted (teamdocs-git is report-only). */
const REPORT_ON = [
  'teamdocs-apache',
  'teamdocs-sqlite',
  'teamdocs-handbook',
  'teamdocs-git',
  'hotpotqa-train-100',
  'musique-100',
];

const readQuestions = (file) =>
  fs.existsSync(file)
    ? fs
        .readFileSync(file, 'utf8')
        .split('\n')
        .filter((l) => l.trim())
        .map((l) => JSON.parse(l))
    : [];

/**
 * @param {object} o
 * @param {string} o.root the checkout; @param {string} o.out the pipeline's folder; @param {string} o.data the shared datasets
 * @param {string[]} o.sets the teamqa sets; @param {string} o.python a python with torch; @param {(msg: string) => never} o.fail
 */
export async function trainAnswerType({ root, out, data, sets, python, fail }) {
  const dist = (p) => import(pathToFileURL(path.join(root, 'dist', p)).href);
  const { Encoder } = await dist('models/encoder.js');
  const { typeFit, expectedType } = await dist('engine/answer/answer-type.js');
  const encoder = await Encoder.load({
    modelsDir: path.join(root, 'models'),
    model: 'all-MiniLM-L6-v2',
    variant: 'int8',
    threads: 1,
  });
  const groups = [
    ...sets.map((s) => ({ set: s, file: path.join(data, 'teamqa', s, 'questions.jsonl') })),
    ...sets.map((s) => ({
      set: s,
      file: path.join(root, 'data', 'teamqa-extra', s, 'questions.jsonl'),
      written: true,
    })),
    ...REPORT_ON.map((s) => ({ set: s, file: path.join(data, s, 'questions.jsonl'), report: true })),
  ];
  const rows = [];
  for (const g of groups) {
    const qs = readQuestions(g.file);
    if (!qs.length && !g.written) fail(`no questions in ${g.file}: point --data at the shared datasets folder`);
    const vectors = await encoder.encode(qs.map((q) => q.question));
    qs.forEach((q, i) => {
      const answers = q.answers ?? [];
      // the best fit over the gold answers: any of them is right
      const fits = Object.fromEntries(
        KINDS.map((k) => [k, answers.length ? Math.max(...answers.map((a) => typeFit(k, a))) : 0]),
      );
      const type = q.type ?? (answers.length ? 'factoid' : 'unanswerable');
      rows.push({
        set: g.set,
        id: q.id,
        type,
        question: q.question,
        rule: expectedType(q.question),
        fits,
        vec: Array.from(vectors[i], (x) => +x.toFixed(6)),
        ...g,
        file: undefined,
      });
    });
    process.stderr.write(
      `[train-teamqa] answer type: ${g.set}${g.written ? ' (written)' : ''}: ${qs.length} questions\n`,
    );
  }
  const file = path.join(out, 'answer-type-rows.jsonl');
  fs.writeFileSync(file, `${rows.map((r) => JSON.stringify(r)).join('\n')}\n`);
  const r = spawnSync(
    python,
    [path.join(root, 'scripts', 'train_answer_type.py'), '--rows', file, '--report', path.join(out, 'answer-type.md')],
    { stdio: 'inherit' },
  );
  if (r.status !== 0) fail(`scripts/train_answer_type.py exited with ${r.status}`);
}
