import fs from 'node:fs';
import { InvalidArgumentError, type Command } from 'commander';
import { ANSWER_THRESHOLD, FEATURE_NAMES, featureVector, HIGH_CONFIDENCE } from '../../engine/answer/confidence.js';
import { predict, type LogisticModel } from '../../engine/logistic.js';
import { isUnanswerable, loadDataset } from '../../eval/dataset.js';
import { mean, scoreAnswer } from '../../eval/metrics.js';
import { answerRight } from '../../eval/visible.js';
import { leaveOneSetOut } from '../../eval/calibration.js';
import { LOCAL } from '../../store/access.js';
import { UserError } from '../../errors.js';
import { fittedSource, sourceFile, writeFitted } from './fitted-source.js';
import { progressBar } from '../progress.js';
import { parsePositiveInt } from './shared.js';
import { evalEngine, withDatasetCore } from './eval.js';
import { calibrateLines } from './calibrate-lines.js';
import { calibrateGate } from './calibrate-gate.js';
import { calibrateSpans } from './calibrate-spans.js';
import { samplesFromEval, type ConfidenceSample } from './calibrate-from-eval.js';
import { commandLine, outOfFold, weightLines, type CalibrateOptions } from './calibrate-fit.js';
import type { CliContext } from '../context.js';
import { fitLogistic, formatReliability, reliability } from '../../eval/fit.js';

type Sample = ConfidenceSample;

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
  const { samples, reader } = opts.fromEval?.length
    ? samplesFromEval(opts.fromEval)
    : await collectSamples(ctx, cmd, opts.dataset, opts.limit);
  // with --from-eval, the --report-on sets are eval reports too
  const reported = !opts.reportOn?.length
    ? []
    : opts.fromEval?.length
      ? samplesFromEval(opts.reportOn).samples
      : (await collectSamples(ctx, cmd, opts.reportOn, opts.limit)).samples;
  const proposals = proposalsOf(samples);
  if (proposals.length < opts.folds * 4)
    throw new UserError(
      `only ${proposals.length} proposed answers: too few to fit and cross-validate; add datasets or questions`,
    );
  if (opts.dump) fs.writeFileSync(opts.dump, `${[...samples, ...reported].map((s) => JSON.stringify(s)).join('\n')}\n`);
  const allP = outOfFoldProbabilities(samples, proposals, opts);
  const sets = [...new Set(samples.map((s) => s.dataset))];
  const lines = [
    `out-of-fold (${opts.folds}-fold cross-validation, folds by question id):`,
    ...setSummaries(samples, allP, sets),
    ...summary('  all', samples, allP),
  ];
  if (sets.length > 1)
    lines.push(
      '',
      'leave one set out (fitted on the others, judged on the set named):',
      ...heldOutSummaries(samples, proposals, sets, opts.l2),
    );
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
  if (opts.write) writeAnswerCalibration(model, opts, sets, samples.length, cvEce, reader);
}

/** Each proposal's probability from a fit that did not see its question (k folds by question id). */
function outOfFoldProbabilities(
  samples: readonly Sample[],
  proposals: readonly Sample[],
  opts: CalibrateOptions,
): number[] {
  const oof = outOfFold(
    proposals.map((s) => featureVector(s.features)),
    proposals.map((s) => s.em),
    proposals.map((s) => `${s.dataset}\u0000${s.id}`),
    FEATURE_NAMES,
    opts.folds,
    opts.l2,
  );
  const pOf = new Map(proposals.map((s, i) => [s, oof[i]!]));
  return samples.map((s) => pOf.get(s) ?? 0);
}

/** The summary of each set, in the order the sets came. */
function setSummaries(samples: readonly Sample[], p: readonly number[], sets: readonly string[]): string[] {
  return sets.flatMap((name) => {
    const idx = samples.map((s, i) => (s.dataset === name ? i : -1)).filter((i) => i >= 0);
    return summary(
      `  ${name}`,
      idx.map((i) => samples[i]!),
      idx.map((i) => p[i]!),
    );
  });
}

/** Leave one set out: fitted on the other sets, each set judged on its own questions. */
function heldOutSummaries(
  samples: readonly Sample[],
  proposals: readonly Sample[],
  sets: readonly string[],
  l2: number,
): string[] {
  const held = leaveOneSetOut(
    proposals.map((s) => ({ set: s.dataset, x: featureVector(s.features), y: s.em })),
    FEATURE_NAMES,
    l2,
  );
  return sets.flatMap((name) => {
    // proposals in the order leaveOneSetOut kept them; "none" readings are 0 by construction
    const p = held.get(name)?.p ?? [];
    let k = 0;
    const setSamples = samples.filter((s) => s.dataset === name);
    return summary(
      `  ${name}`,
      setSamples,
      setSamples.map((s) => (s.features.kind === 'none' ? 0 : p[k++]!)),
    );
  });
}

/** --write: the fit as src/engine/answer/calibration.fitted.ts, with what it was fitted on. */
function writeAnswerCalibration(
  model: LogisticModel,
  opts: CalibrateOptions,
  sets: readonly string[],
  questions: number,
  cvEce: number,
  reader: string,
): void {
  const file = sourceFile('answer', 'calibration.fitted.ts');
  writeFitted(
    file,
    fittedSource(model, {
      command: commandLine(opts),
      datasets: [...sets],
      questions,
      cvFolds: opts.folds,
      cvEce: Number(cvEce.toFixed(4)),
      reader,
      date: new Date().toISOString().slice(0, 10),
    }),
  );
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

export function register(program: Command, ctx: CliContext): void {
  program
    .command('calibrate')
    .description(
      'fit the answer confidence (P(right)) on QA datasets with cross-validation; prints the out-of-fold reliability, --write stores the fit',
    )
    .option(
      '--dataset <dir...>',
      'dataset folders (corpus.jsonl + questions.jsonl), e.g. ../shared/datasets/hotpotqa-train-100',
      [],
    )
    .option(
      '--from-eval <reports...>',
      'the answer confidence: fit on the readings of `ragask eval --json` reports instead of running the engine (each set as its own reader read it); --report-on then names reports too',
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
    .option('--spans', "fit the span scorer's weights (which span is the answer) instead of the answer confidence")
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
      '--from-dump <files...>',
      '--lines: read the candidate lines from earlier --dump files instead of running the engine (--dataset, --report-on name the sets)',
    )
    .option(
      '--write',
      'write the fit to src/engine/answer/calibration.fitted.ts (--gate: src/engine/gate.fitted.ts); a source checkout, rebuild after',
    )
    .action(async (opts: CalibrateOptions, cmd: Command) => {
      if (opts.folds < 2) throw new UserError('--folds must be at least 2 for cross-validation');
      if (!opts.dataset.length && !opts.fromEval?.length)
        throw new UserError(
          'give the sets to fit on: --dataset <dir...>, or --from-eval <reports...> for the answer confidence',
        );
      if (opts.fromEval?.length && (opts.gate || opts.lines || opts.spans))
        throw new UserError('--from-eval fits the answer confidence only: leave out --gate, --lines and --spans');
      if (opts.fromDump && !opts.lines) throw new UserError('--from-dump reads line dumps: use it with --lines');
      if (opts.gate) return calibrateGate(ctx, cmd, opts);
      if (opts.lines) return calibrateLines(ctx, cmd, opts, commandLine(opts));
      if (opts.spans) return calibrateSpans(ctx, cmd, opts, commandLine(opts));
      return calibrateAnswers(ctx, cmd, opts);
    });
}
