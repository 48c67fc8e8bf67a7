import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { InvalidArgumentError, type Command } from 'commander';
import { ANSWER_THRESHOLD, FEATURE_NAMES, featureVector, HIGH_CONFIDENCE } from '../../engine/answer/confidence.js';
import { GATE_FEATURES } from '../../engine/gate.js';
import { predict, type LogisticModel } from '../../engine/logistic.js';
import { labelGateChecks, type GateCheck } from '../../eval/gate.js';
import { isUnanswerable, loadDataset } from '../../eval/dataset.js';
import { mean, scoreAnswer } from '../../eval/metrics.js';
import { answerRight } from '../../eval/visible.js';
import { leaveOneSetOut } from '../../eval/calibration.js';
import { LOCAL } from '../../store/access.js';
import { UserError } from '../../errors.js';
import { fittedGateSource, fittedSource, sourceFile } from './fitted-source.js';
import { progressBar } from '../progress.js';
import { parsePositiveInt } from './shared.js';
import { evalEngine, withDatasetCore } from './eval.js';
import { calibrateLines } from './calibrate-lines.js';
import type { ReadingFeatures } from '../../engine/answer/features.js';
import type { CliContext } from '../context.js';
import { fitLogistic, formatReliability, reliability } from '../../eval/fit.js';

interface Sample {
  dataset: string;
  id: string;
  question: string;
  /** The reading's short answer (for --dump). */
  value: string | null;
  features: ReadingFeatures;
  /** The proposed answer is right (eval/visible.ts answerRight: what the confidence is a probability of). */
  em: number;
  f1: number;
}

/** Reads every question of the datasets with the engine and keeps each reading's features and label. */
async function collectSamples(
  ctx: CliContext,
  cmd: Command,
  dirs: readonly string[],
  limit: number | undefined,
): Promise<{ samples: Sample[]; reader: string }> {
  const samples: Sample[] = [];
  let reader = '';
  for (const dir of dirs) {
    const dataset = loadDataset(dir);
    // an unanswerable question is a sample too: whatever it proposes is wrong (label 0)
    const questions = dataset.questions
      .filter((q) => q.answers.length || isUnanswerable(q))
      .slice(0, limit ?? Infinity);
    await withDatasetCore(ctx, cmd, dataset, undefined, async (core, config) => {
      reader = core.reader.name;
      const engine = evalEngine(core, config);
      const bar = progressBar();
      bar.start(questions.length, `calibrate ${dataset.name}`);
      for (const [i, q] of questions.entries()) {
        const r = await engine.run(q.question, LOCAL);
        const reading = r.answer.reading;
        if (reading) {
          const right = answerRight(reading.value, q.answers) ? 1 : 0;
          samples.push({
            dataset: dataset.name,
            id: q.id,
            question: q.question,
            value: reading.value,
            features: reading.features,
            em: right,
            f1: scoreAnswer(reading.value, q.answers).f1,
          });
        }
        bar.update(i + 1, `calibrate ${dataset.name}`);
      }
      bar.stop();
    });
  }
  return { samples, reader };
}

/** P(right) of each sample under a model fitted on `train` ("none" readings are 0 by construction). */
function probabilities(model: LogisticModel, samples: readonly Sample[]): number[] {
  return samples.map((s) => (s.features.kind === 'none' ? 0 : predict(model, featureVector(s.features))));
}

const proposalsOf = (samples: readonly Sample[]) => samples.filter((s) => s.features.kind !== 'none');

function fitOn(samples: readonly Sample[], l2: number): LogisticModel {
  const proposals = proposalsOf(samples);
  return fitLogistic(
    proposals.map((s) => featureVector(s.features)),
    proposals.map((s) => s.em),
    FEATURE_NAMES,
    l2,
  );
}

/**
 * The answer confidence: fitted on the --dataset sets, and judged three ways, each on questions
 * the fit did not see: k-fold out of fold, leave-one-set-out (fitted without a set, judged on
 * it), and on the --report-on sets, which are never fitted on.
 */
async function calibrateAnswers(ctx: CliContext, cmd: Command, opts: CalibrateOptions): Promise<void> {
  const { samples, reader } = await collectSamples(ctx, cmd, opts.dataset, opts.limit);
  const reported = opts.reportOn?.length ? (await collectSamples(ctx, cmd, opts.reportOn, opts.limit)).samples : [];
  const proposals = proposalsOf(samples);
  if (proposals.length < opts.folds * 4)
    throw new UserError(
      `only ${proposals.length} proposed answers: too few to fit and cross-validate; add datasets or questions`,
    );
  if (opts.dump) fs.writeFileSync(opts.dump, `${[...samples, ...reported].map((s) => JSON.stringify(s)).join('\n')}\n`);
  const oof = outOfFold(
    proposals.map((s) => featureVector(s.features)),
    proposals.map((s) => s.em),
    proposals.map((s) => `${s.dataset}\u0000${s.id}`),
    FEATURE_NAMES,
    opts.folds,
    opts.l2,
  );
  const pOf = new Map(proposals.map((s, i) => [s, oof[i]!]));
  const allP = samples.map((s) => pOf.get(s) ?? 0);
  const sets = [...new Set(samples.map((s) => s.dataset))];
  const lines = [`out-of-fold (${opts.folds}-fold cross-validation, folds by question id):`];
  for (const name of sets) {
    const idx = samples.map((s, i) => (s.dataset === name ? i : -1)).filter((i) => i >= 0);
    lines.push(
      ...summary(
        `  ${name}`,
        idx.map((i) => samples[i]!),
        idx.map((i) => allP[i]!),
      ),
    );
  }
  lines.push(...summary('  all', samples, allP));
  if (sets.length > 1) {
    lines.push('', 'leave one set out (fitted on the others, judged on the set named):');
    const held = leaveOneSetOut(
      proposals.map((s) => ({ set: s.dataset, x: featureVector(s.features), y: s.em })),
      FEATURE_NAMES,
      opts.l2,
    );
    for (const name of sets) {
      // proposals in the order leaveOneSetOut kept them; "none" readings are 0 by construction
      const p = held.get(name)?.p ?? [];
      let k = 0;
      const setSamples = samples.filter((s) => s.dataset === name);
      lines.push(
        ...summary(
          `  ${name}`,
          setSamples,
          setSamples.map((s) => (s.features.kind === 'none' ? 0 : p[k++]!)),
        ),
      );
    }
  }
  const cvEce = reliability(
    allP,
    samples.map((s) => s.em),
  ).ece;
  const model = fitOn(samples, opts.l2);
  if (reported.length) {
    lines.push('', 'never fitted on (the fit on all --dataset sets):');
    for (const name of [...new Set(reported.map((s) => s.dataset))]) {
      const held = reported.filter((s) => s.dataset === name);
      lines.push(...summary(`  ${name}`, held, probabilities(model, held)));
    }
  }
  lines.push('', 'fit on all (standardised weights):', ...weightLines(model, 22));
  ctx.out(lines.join('\n'));
  if (opts.write) {
    const file = sourceFile('answer', 'calibration.fitted.ts');
    fs.writeFileSync(
      file,
      fittedSource(model, {
        command: commandLine(opts),
        datasets: sets,
        questions: samples.length,
        cvFolds: opts.folds,
        cvEce: Number(cvEce.toFixed(4)),
        reader,
        date: new Date().toISOString().slice(0, 10),
      }),
    );
    process.stderr.write(`ragask: wrote ${file}; run \`npm run build\` to use it\n`);
  }
}

function summary(name: string, samples: readonly Sample[], p: readonly number[]): string[] {
  const rel = reliability(
    p,
    samples.map((s) => s.em),
  );
  const answered = samples.map((_, i) => p[i]! >= ANSWER_THRESHOLD);
  const high = samples.filter((_, i) => p[i]! >= HIGH_CONFIDENCE);
  const em = mean(samples.map((s, i) => (answered[i] ? s.em : 0)));
  const f1 = mean(samples.map((s, i) => (answered[i] ? s.f1 : 0)));
  return [
    `${name}: ${samples.length} questions; proposals right ${mean(samples.map((s) => s.em)).toFixed(3)}; answered ${mean(answered.map(Number)).toFixed(3)}; right ${em.toFixed(3)} F1 ${f1.toFixed(3)} (declined = 0); ECE ${rel.ece.toFixed(3)}; high ${high.length}, ${high.length ? (100 * mean(high.map((s) => s.em))).toFixed(0) : '—'}% right`,
    ...formatReliability(rel.bins, '    '),
  ];
}

/** A fitted model's standardised weights, one line each, then its bias. */
function weightLines(model: LogisticModel, width: number): string[] {
  return [
    ...model.features.map((f, i) => `  ${f.padEnd(width)}${model.weights[i]!.toFixed(3).padStart(8)}`),
    `  ${'bias'.padEnd(width)}${model.bias.toFixed(3).padStart(8)}`,
  ];
}

interface CalibrateOptions {
  dataset: string[];
  reportOn?: string[];
  folds: number;
  l2: number;
  limit?: number;
  write?: boolean;
  gate?: boolean;
  lines?: boolean;
  maxStoppedRight: number;
  dump?: string;
}

function commandLine(opts: CalibrateOptions): string {
  const sets = opts.dataset.map((d) => `--dataset ${path.relative(process.cwd(), path.resolve(d))}`).join(' ');
  const reported = (opts.reportOn ?? [])
    .map((d) => ` --report-on ${path.relative(process.cwd(), path.resolve(d))}`)
    .join('');
  return `npx ragask calibrate ${opts.gate ? '--gate ' : ''}${opts.lines ? '--lines ' : ''}${sets}${reported} --folds ${opts.folds} --l2 ${opts.l2}${opts.gate ? ` --max-stopped-right ${opts.maxStoppedRight}` : ''}${opts.limit ? ` --limit ${opts.limit}` : ''} --write`;
}

/** Out-of-fold predictions of a logistic fit, folds by a stable hash of each sample's key. */
function outOfFold(
  X: readonly number[][],
  y: readonly number[],
  keys: readonly string[],
  names: readonly string[],
  folds: number,
  l2: number,
): number[] {
  const fold = keys.map((k) => parseInt(createHash('sha256').update(k).digest('hex').slice(0, 8), 16) % folds);
  const oof = new Array<number>(X.length).fill(0);
  for (let k = 0; k < folds; k++) {
    const train = X.map((_, i) => i).filter((i) => fold[i] !== k);
    const model = fitLogistic(
      train.map((i) => X[i]!),
      train.map((i) => y[i]!),
      names,
      l2,
    );
    X.forEach((x, i) => {
      if (fold[i] === k) oof[i] = predict(model, x);
    });
  }
  return oof;
}

/**
 * The gate: every check of every chain, run in shadow mode (measured, never obeyed) and labelled
 * by whether its next hop brought a missing supporting passage; a logistic fit of P(right), and the
 * threshold that stops the most wrong-bridge hops while stopping at most --max-stopped-right of
 * the right ones (out of fold).
 */
async function calibrateGate(ctx: CliContext, cmd: Command, opts: CalibrateOptions): Promise<void> {
  const rows: { dataset: string; key: string; check: GateCheck }[] = [];
  for (const dir of opts.dataset) {
    const dataset = loadDataset(dir);
    const questions = dataset.questions.slice(0, opts.limit ?? Infinity);
    await withDatasetCore(ctx, cmd, dataset, undefined, async (core, config) => {
      const engine = evalEngine(core, config);
      const bar = progressBar();
      bar.start(questions.length, `gate ${dataset.name}`);
      for (const [i, q] of questions.entries()) {
        const r = await engine.run(q.question, LOCAL, { gateShadow: true });
        for (const check of labelGateChecks(r, q.supporting, (s) => dataset.passageOf(s))) {
          if (check.features) rows.push({ dataset: dataset.name, key: `${dataset.name}\u0000${q.id}`, check });
        }
        bar.update(i + 1, `gate ${dataset.name}`);
      }
      bar.stop();
    });
  }
  if (rows.length < opts.folds * 4)
    throw new UserError(
      `only ${rows.length} gate checks: too few to fit and cross-validate; add datasets or questions`,
    );
  if (opts.dump)
    fs.writeFileSync(
      opts.dump,
      `${rows.map((r) => JSON.stringify({ dataset: r.dataset, key: r.key, ...r.check })).join('\n')}\n`,
    );
  const X = rows.map((r) => r.check.features!);
  const y = rows.map((r) => (r.check.right ? 1 : 0));
  const oof = outOfFold(
    X,
    y,
    rows.map((r) => r.key),
    GATE_FEATURES,
    opts.folds,
    opts.l2,
  );
  const at = (t: number, sel: (i: number) => boolean) => {
    const idx = rows.map((_, i) => i).filter(sel);
    return { n: idx.length, stopped: idx.filter((i) => oof[i]! < t).length };
  };
  // the highest threshold whose out-of-fold share of stopped right hops stays within the limit
  let threshold = 0;
  for (let t = 0.01; t < 0.99; t += 0.01)
    if (at(t, (i) => y[i] === 1).stopped <= opts.maxStoppedRight * at(t, (i) => y[i] === 1).n)
      threshold = Number(t.toFixed(2));
  const complete = rows.filter((r) => r.check.missing === 0).length;
  const lines = [
    `${rows.length} gate checks; ${y.filter((v) => v === 0).length} wrong-bridge hops (${complete} of them after the evidence was already complete), ${y.filter((v) => v === 1).length} right ones`,
    `out-of-fold (${opts.folds}-fold), threshold ${threshold.toFixed(2)}:`,
  ];
  for (const name of [...new Set(rows.map((r) => r.dataset))]) {
    const w = at(threshold, (i) => rows[i]!.dataset === name && y[i] === 0);
    const r = at(threshold, (i) => rows[i]!.dataset === name && y[i] === 1);
    lines.push(
      `  ${name}: stops ${w.stopped} of ${w.n} wrong-bridge hops (${w.n ? ((100 * w.stopped) / w.n).toFixed(0) : '—'}%), ${r.stopped} of ${r.n} right ones (${r.n ? ((100 * r.stopped) / r.n).toFixed(0) : '—'}%)`,
    );
  }
  const rel = reliability(oof, y);
  lines.push(`  ECE of P(right) ${rel.ece.toFixed(3)}`, ...formatReliability(rel.bins, '    '));
  // the old rules on the same checks, for comparison
  const cosineRule = rows.filter((r) => r.check.cosine < 0.75);
  lines.push(
    `  the cosine 0.75 alone would stop ${cosineRule.filter((r) => !r.check.right).length} wrong and ${cosineRule.filter((r) => r.check.right).length} right hops`,
  );
  const model = fitLogistic(X, y, GATE_FEATURES, opts.l2);
  lines.push('', 'fit on all (standardised weights):', ...weightLines(model, 20));
  ctx.out(lines.join('\n'));
  if (opts.write) {
    const file = sourceFile('gate.fitted.ts');
    const wrong = at(threshold, (i) => y[i] === 0);
    const right = at(threshold, (i) => y[i] === 1);
    const fitted = {
      command: commandLine(opts),
      datasets: [...new Set(rows.map((r) => r.dataset))],
      checks: rows.length,
      cvFolds: opts.folds,
      stoppedWrong: Number((wrong.stopped / Math.max(1, wrong.n)).toFixed(4)),
      stoppedRight: Number((right.stopped / Math.max(1, right.n)).toFixed(4)),
      date: new Date().toISOString().slice(0, 10),
    };
    fs.writeFileSync(file, fittedGateSource(model, threshold, fitted));
    process.stderr.write(`ragask: wrote ${file}; run \`npm run build\` to use it\n`);
  }
}

export function register(program: Command, ctx: CliContext): void {
  program
    .command('calibrate')
    .description(
      'fit the answer confidence (P(right)) on QA datasets with cross-validation; prints the out-of-fold reliability, --write stores the fit',
    )
    .requiredOption(
      '--dataset <dir...>',
      'dataset folders (corpus.jsonl + questions.jsonl), e.g. ../shared/datasets/hotpotqa-train-100',
    )
    .option('--folds <n>', 'cross-validation folds', parsePositiveInt('--folds', 50), 5)
    .option(
      '--l2 <x>',
      'L2 penalty of the logistic regression',
      (v) => {
        const x = Number(v);
        if (!Number.isFinite(x) || x < 0 || x > 1000)
          throw new InvalidArgumentError(`--l2 must be a number from 0 to 1000 (got ${JSON.stringify(v)})`);
        return x;
      },
      1,
    )
    .option('--limit <n>', 'only the first n questions of each dataset', parsePositiveInt('--limit', 1_000_000))
    .option('--gate', 'fit the hop gate (P(next hop right)) instead of the answer confidence')
    .option('--lines', 'fit the line ranker (which line a reply leads with) instead of the answer confidence')
    .option(
      '--max-stopped-right <x>',
      'the gate: most share of right hops it may stop (chooses its threshold)',
      (v) => {
        const x = Number(v);
        if (!Number.isFinite(x) || x <= 0 || x >= 1)
          throw new InvalidArgumentError(
            `--max-stopped-right must be a number between 0 and 1 (got ${JSON.stringify(v)})`,
          );
        return x;
      },
      0.1,
    )
    .option('--report-on <dir...>', 'datasets only reported on, never fitted on (e.g. ../shared/datasets/teamdocs-git)')
    .option('--dump <file>', 'also write every sample (features and label) as JSON lines, for analysis')
    .option(
      '--write',
      'write the fit to src/engine/answer/calibration.fitted.ts (--gate: src/engine/gate.fitted.ts); a source checkout, rebuild after',
    )
    .action(async (opts: CalibrateOptions, cmd: Command) => {
      if (opts.folds < 2) throw new UserError('--folds must be at least 2 for cross-validation');
      if (opts.gate) return calibrateGate(ctx, cmd, opts);
      if (opts.lines) return calibrateLines(ctx, cmd, opts, commandLine(opts));
      return calibrateAnswers(ctx, cmd, opts);
    });
}
