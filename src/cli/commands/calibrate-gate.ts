import fs from 'node:fs';
import type { Command } from 'commander';
import { GATE_FEATURES } from '../../engine/gate.js';
import { labelGateChecks, type GateCheck } from '../../eval/gate.js';
import { loadDataset } from '../../eval/dataset.js';
import { LOCAL } from '../../store/access.js';
import { UserError } from '../../errors.js';
import { fittedGateSource, sourceFile, writeFitted } from './fitted-source.js';
import { progressBar } from '../progress.js';
import { evalEngine, withDatasetCore } from './eval.js';
import { commandLine, outOfFold, weightLines, type CalibrateOptions } from './calibrate-fit.js';
import type { CliContext } from '../context.js';
import { predict, type LogisticModel } from '../../engine/logistic.js';
import { fitLogistic, formatReliability, reliability } from '../../eval/fit.js';

type GateRow = { dataset: string; key: string; check: GateCheck };

/**
 * The gate: every check of every chain, run in shadow mode (measured, never obeyed) and labelled
 * by whether its next hop brought a missing supporting passage; a logistic fit of P(right), and the
 * threshold that stops the most wrong-bridge hops while stopping at most --max-stopped-right of
 * the right ones (out of fold).
 */
export async function calibrateGate(ctx: CliContext, cmd: Command, opts: CalibrateOptions): Promise<void> {
  const rows = await collectGateRows(ctx, cmd, opts.dataset, opts.limit);
  const reported = opts.reportOn?.length ? await collectGateRows(ctx, cmd, opts.reportOn, opts.limit) : [];
  if (rows.length < opts.folds * 4)
    throw new UserError(
      `only ${rows.length} gate checks: too few to fit and cross-validate; add datasets or questions`,
    );
  if (opts.dump)
    fs.writeFileSync(
      opts.dump,
      `${[...rows, ...reported].map((r) => JSON.stringify({ dataset: r.dataset, key: r.key, ...r.check })).join('\n')}\n`,
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
  const stoppedAt = (t: number, sel: (i: number) => boolean) => {
    const idx = rows.map((_, i) => i).filter(sel);
    return { n: idx.length, stopped: idx.filter((i) => oof[i]! < t).length };
  };
  const threshold = gateThreshold(stoppedAt, y, opts.maxStoppedRight);
  const model = fitLogistic(X, y, GATE_FEATURES, opts.l2);
  ctx.out(
    [
      ...gateReportLines(rows, y, oof, threshold, stoppedAt, opts.folds),
      ...reportedLines(reported, model, threshold),
      '',
      'fit on all (standardised weights):',
      ...weightLines(model, 20),
    ].join('\n'),
  );
  if (!opts.write) return;
  const file = sourceFile('gate.fitted.ts');
  const wrong = stoppedAt(threshold, (i) => y[i] === 0);
  const right = stoppedAt(threshold, (i) => y[i] === 1);
  const fitted = {
    command: commandLine(opts),
    datasets: [...new Set(rows.map((r) => r.dataset))],
    checks: rows.length,
    cvFolds: opts.folds,
    stoppedWrong: Number((wrong.stopped / Math.max(1, wrong.n)).toFixed(4)),
    stoppedRight: Number((right.stopped / Math.max(1, right.n)).toFixed(4)),
    date: new Date().toISOString().slice(0, 10),
  };
  writeFitted(file, fittedGateSource(model, threshold, fitted));
}

/** Every hop check of every question of the sets, run with the gate in shadow so each hop is taken. */
async function collectGateRows(
  ctx: CliContext,
  cmd: Command,
  dirs: readonly string[],
  limit: number | undefined,
): Promise<GateRow[]> {
  const rows: GateRow[] = [];
  for (const dir of dirs) {
    const dataset = loadDataset(dir);
    const questions = dataset.questions.slice(0, limit ?? Infinity);
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
  return rows;
}

type StoppedAt = (t: number, sel: (i: number) => boolean) => { n: number; stopped: number };

/** The --report-on sets, never fitted on: what the fit on all --dataset sets stops at its threshold. */
export function reportedLines(reported: readonly GateRow[], model: LogisticModel, threshold: number): string[] {
  if (!reported.length) return [];
  const p = reported.map((r) => predict(model, r.check.features!));
  const lines = ['', `never fitted on (the fit on all --dataset sets, threshold ${threshold.toFixed(2)}):`];
  for (const name of [...new Set(reported.map((r) => r.dataset))]) {
    const idx = reported.map((_, i) => i).filter((i) => reported[i]!.dataset === name);
    const count = (right: boolean) => idx.filter((i) => reported[i]!.check.right === right);
    const [w, r] = [count(false), count(true)];
    const stopped = (xs: number[]) => xs.filter((i) => p[i]! < threshold).length;
    lines.push(
      `  ${name}: stops ${stopped(w)} of ${w.length} wrong-bridge hops, ${stopped(r)} of ${r.length} right ones`,
    );
  }
  return lines;
}

/** The highest threshold whose out-of-fold share of stopped right hops stays within the limit. */
function gateThreshold(stoppedAt: StoppedAt, y: readonly number[], maxStoppedRight: number): number {
  let threshold = 0;
  for (let t = 0.01; t < 0.99; t += 0.01) {
    const right = stoppedAt(t, (i) => y[i] === 1);
    if (right.stopped <= maxStoppedRight * right.n) threshold = Number(t.toFixed(2));
  }
  return threshold;
}

/** The report: wrong and right hops stopped per set at the threshold, the reliability, the old cosine rule beside it. */
function gateReportLines(
  rows: readonly GateRow[],
  y: readonly number[],
  oof: readonly number[],
  threshold: number,
  stoppedAt: StoppedAt,
  folds: number,
): string[] {
  const complete = rows.filter((r) => r.check.missing === 0).length;
  const lines = [
    `${rows.length} gate checks; ${y.filter((v) => v === 0).length} wrong-bridge hops (${complete} of them after the evidence was already complete), ${y.filter((v) => v === 1).length} right ones`,
    `out-of-fold (${folds}-fold), threshold ${threshold.toFixed(2)}:`,
  ];
  for (const name of [...new Set(rows.map((r) => r.dataset))]) {
    const w = stoppedAt(threshold, (i) => rows[i]!.dataset === name && y[i] === 0);
    const r = stoppedAt(threshold, (i) => rows[i]!.dataset === name && y[i] === 1);
    lines.push(
      `  ${name}: stops ${w.stopped} of ${w.n} wrong-bridge hops (${w.n ? ((100 * w.stopped) / w.n).toFixed(0) : '—'}%), ${r.stopped} of ${r.n} right ones (${r.n ? ((100 * r.stopped) / r.n).toFixed(0) : '—'}%)`,
    );
  }
  const rel = reliability(oof, y);
  lines.push(`  ECE of P(right) ${rel.ece.toFixed(3)}`, ...formatReliability(rel.bins, '    '));
  // the old rule on the same checks, for comparison
  const cosineRule = rows.filter((r) => r.check.cosine < 0.75);
  lines.push(
    `  the cosine 0.75 alone would stop ${cosineRule.filter((r) => !r.check.right).length} wrong and ${cosineRule.filter((r) => r.check.right).length} right hops`,
  );
  return lines;
}
