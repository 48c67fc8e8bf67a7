import { createHash } from 'node:crypto';
import path from 'node:path';
import { predict, type LogisticModel } from '../../engine/logistic.js';
import { fitLogistic } from '../../eval/fit.js';

// What the fits of `ragask calibrate` share: its options and the command line a fitted file records
// (all three), the out-of-fold predictions and the printed weights (the answer confidence and the gate).

/** A fitted model's standardised weights, one line each, then its bias. */
export function weightLines(model: LogisticModel, width: number): string[] {
  return [
    ...model.features.map((f, i) => `  ${f.padEnd(width)}${model.weights[i]!.toFixed(3).padStart(8)}`),
    `  ${'bias'.padEnd(width)}${model.bias.toFixed(3).padStart(8)}`,
  ];
}

export interface CalibrateOptions {
  /** Empty only with --from-eval (checked by the command). */
  dataset: string[];
  fromEval?: string[];
  reportOn?: string[];
  folds: number;
  l2: number;
  limit?: number;
  write?: boolean;
  gate?: boolean;
  lines?: boolean;
  spans?: boolean;
  maxStoppedRight: number;
  dump?: string;
  fromDump?: string[];
}

export function commandLine(opts: CalibrateOptions): string {
  const sets = opts.dataset.map((d) => `--dataset ${path.relative(process.cwd(), path.resolve(d))}`).join(' ');
  const reported = (opts.reportOn ?? [])
    .map((d) => ` --report-on ${path.relative(process.cwd(), path.resolve(d))}`)
    .join('');
  return `npx ragask calibrate ${opts.gate ? '--gate ' : ''}${opts.lines ? '--lines ' : ''}${opts.spans ? '--spans ' : ''}${sets}${reported} --folds ${opts.folds} --l2 ${opts.l2}${opts.gate ? ` --max-stopped-right ${opts.maxStoppedRight}` : ''}${opts.limit ? ` --limit ${opts.limit}` : ''}${opts.fromDump ? ` --from-dump ${opts.fromDump.join(' ')}` : ''} --write`;
}

/** Out-of-fold predictions of a logistic fit, folds by a stable hash of each sample's key. */
export function outOfFold(
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
