import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { LINE_FEATURES, shownLine, type LineCandidate } from '../../engine/answer/lines.js';
import { predict, type LogisticModel } from '../../engine/logistic.js';
import { loadDataset } from '../../eval/dataset.js';
import { containsAnswer, mean } from '../../eval/metrics.js';
import { LOCAL } from '../../store/access.js';
import { UserError } from '../../errors.js';
import { progressBar } from '../progress.js';
import { fittedLinesSource, sourceFile, writeFitted } from './fitted-source.js';
import { evalEngine, withDatasetCore } from './eval.js';
import type { CliContext } from '../context.js';
import { fitLogistic } from '../../eval/fit.js';
import { heldOutReport } from './held-out.js';

/** One question's candidate lines: each line's features and whether it holds a gold answer. */
interface QuestionLines {
  dataset: string;
  id: string;
  question: string;
  /** The leads the reply shows without the ranker, in its order: whether each holds the answer. */
  shownHolds: boolean[];
  /** Each line's features, whether it holds a gold answer, and its text as shown (for --dump). */
  lines: { x: number[]; y: number; text: string }[];
}

export interface LinesOptions {
  dataset: string[];
  reportOn?: string[];
  limit?: number;
  l2: number;
  write?: boolean;
  /** Also write every question's candidate lines (features and labels) as JSON lines, for analysis. */
  dump?: string;
  /**
   * Read the candidate lines from earlier --dump files instead of running the engine; the --dataset
   * and --report-on folders then only name the sets taken from them. Readings made under different
   * settings (each set read by an encoder that never saw it) can be fitted together this way.
   */
  fromDump?: string[];
}

/** Runs every answerable question and keeps the candidate lines of its reading, labelled. */
async function collectLines(ctx: CliContext, cmd: Command, dirs: readonly string[], limit?: number) {
  const out: QuestionLines[] = [];
  for (const dir of dirs) {
    const dataset = loadDataset(dir);
    const questions = dataset.questions.filter((q) => q.answers.length).slice(0, limit ?? Infinity);
    await withDatasetCore(ctx, cmd, dataset, undefined, async (core, config) => {
      let seen: readonly LineCandidate[] = [];
      const engine = evalEngine(core, config, core.retriever, (_q, lines) => {
        seen = lines;
      });
      const bar = progressBar();
      bar.start(questions.length, `lines ${dataset.name}`);
      for (const [i, q] of questions.entries()) {
        seen = [];
        const r = await engine.run(q.question, LOCAL);
        const holds = (text: string) => containsAnswer(text, q.answers);
        out.push({
          dataset: dataset.name,
          id: q.id,
          question: q.question,
          shownHolds: r.answer.leads.map((s) => holds(shownLine(s))),
          lines: seen.map((c) => {
            const text = shownLine(c.snippet);
            return { x: c.features, y: holds(text) ? 1 : 0, text };
          }),
        });
        bar.update(i + 1, `lines ${dataset.name}`);
      }
      bar.stop();
    });
  }
  return out;
}

/** The questions of the named sets from --dump files (a set missing from them is an error, not an empty set). */
function linesFromDumps(files: readonly string[], dirs: readonly string[]): QuestionLines[] {
  const all = files.flatMap((f) => {
    if (!fs.existsSync(f)) throw new UserError(`--from-dump ${f}: no such file; write it with --dump first`);
    return fs
      .readFileSync(f, 'utf8')
      .split('\n')
      .filter((l) => l.trim())
      .map((l) => JSON.parse(l) as QuestionLines);
  });
  const names = dirs.map((d) => path.basename(path.resolve(d)));
  for (const n of names)
    if (!all.some((q) => q.dataset === n))
      throw new UserError(`--from-dump: no questions of ${n} in ${files.join(', ')}`);
  return all.filter((q) => names.includes(q.dataset));
}

function fitOn(questions: readonly QuestionLines[], l2: number): LogisticModel {
  const rows = questions.flatMap((q) => q.lines);
  return fitLogistic(
    rows.map((r) => r.x),
    rows.map((r) => r.y),
    LINE_FEATURES,
    l2,
  );
}

/** The share of questions whose first k ranked lines hold the answer. */
function hitAt(questions: readonly QuestionLines[], model: LogisticModel, k: number): number {
  return mean(
    questions.map((q) => {
      const order = q.lines.map((l) => ({ y: l.y, p: predict(model, l.x, LINE_FEATURES) })).sort((a, b) => b.p - a.p);
      return order.slice(0, k).some((l) => l.y === 1) ? 1 : 0;
    }),
  );
}

/** One line of figures for a set: the ranker's first line and first three against the leads shown without it. */
function summary(name: string, qs: readonly QuestionLines[], model: LogisticModel): string {
  const ceiling = mean(qs.map((q) => (q.lines.some((l) => l.y === 1) ? 1 : 0)));
  const before1 = mean(qs.map((q) => (q.shownHolds[0] ? 1 : 0)));
  const before3 = mean(qs.map((q) => (q.shownHolds.slice(0, 3).some(Boolean) ? 1 : 0)));
  return `  ${name.padEnd(22)} ${String(qs.length).padStart(4)}  ranked@1 ${hitAt(qs, model, 1).toFixed(3)}  ranked@3 ${hitAt(qs, model, 3).toFixed(3)}  leads@1 ${before1.toFixed(3)}  leads@3 ${before3.toFixed(3)}  any line ${ceiling.toFixed(3)}`;
}

/**
 * The line ranker: fitted on the --dataset sets to "this line holds the answer", judged leave one
 * set out (fitted without a set, ranked on it) and on the --report-on sets, never fitted on.
 */
export async function calibrateLines(ctx: CliContext, cmd: Command, opts: LinesOptions, command: string) {
  const collect = (dirs: readonly string[]) =>
    opts.fromDump ? Promise.resolve(linesFromDumps(opts.fromDump, dirs)) : collectLines(ctx, cmd, dirs, opts.limit);
  const questions = await collect(opts.dataset);
  const reported = opts.reportOn?.length ? await collect(opts.reportOn) : [];
  const sets = [...new Set(questions.map((q) => q.dataset))];
  if (opts.dump)
    fs.writeFileSync(opts.dump, `${[...questions, ...reported].map((q) => JSON.stringify(q)).join('\n')}\n`);
  if (questions.flatMap((q) => q.lines).filter((l) => l.y === 1).length < 20)
    throw new UserError('fewer than 20 lines hold an answer: too few to fit; add datasets or questions');
  const { model, lines } = heldOutReport(questions, reported, (qs) => fitOn(qs, opts.l2), summary);
  const out = ['leave one set out (fitted on the others; leads: the reply without the ranker):', ...lines];
  out.push('', 'fit on all (standardised weights):');
  out.push(...LINE_FEATURES.map((f, i) => `  ${f.padEnd(18)}${model.weights[i]!.toFixed(3).padStart(8)}`));
  out.push(`  ${'bias'.padEnd(18)}${model.bias.toFixed(3).padStart(8)}`);
  ctx.out(out.join('\n'));
  if (opts.write) {
    const file = sourceFile('answer', 'lines.fitted.ts');
    const fitted = {
      command,
      datasets: sets,
      questions: questions.length,
      lines: questions.reduce((n, q) => n + q.lines.length, 0),
      date: new Date().toISOString().slice(0, 10),
    };
    writeFitted(file, fittedLinesSource(model, fitted));
  }
}
