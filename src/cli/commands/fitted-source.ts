/**
 * The fitted constants as TypeScript source: what `ragask calibrate --write` writes into
 * src/engine (answer/calibration.fitted.ts, gate.fitted.ts), so the engine reads them as code, typed
 * and reviewed in a diff, with the command that refits them.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { LogisticModel } from '../../engine/logistic.js';
import { UserError } from '../../errors.js';

const numbers = (xs: readonly number[]) => `[${xs.map((x) => Number(x.toPrecision(6))).join(', ')}]`;
const tsObject = (o: object) =>
  JSON.stringify(o, null, 4)
    .replace(/\n}/, '\n  }')
    .replace(/"(\w+)":/g, '$1:')
    .replace(/"/g, "'");

/** A fitted logistic model as TypeScript source (the `model:` entry of a fitted-constants file). */
function modelLiteral(model: LogisticModel): string {
  return `  model: {
    features: [${model.features.map((f) => `'${f}'`).join(', ')}],
    mean: ${numbers(model.mean)},
    std: ${numbers(model.std)},
    weights: ${numbers(model.weights)},
    bias: ${Number(model.bias.toPrecision(6))},
  },`;
}

/** The answer confidence's fitted-constants file. */
export function fittedSource(
  model: LogisticModel,
  fitted: {
    command: string;
    datasets: string[];
    questions: number;
    cvFolds: number;
    cvEce: number;
    reader: string;
    date: string;
  },
): string {
  return `// The fitted constants of the answer confidence (see confidence.ts). Written by \`ragask calibrate\`;
// refit with the command in \`fitted.command\`, never by hand.
import type { LogisticModel } from '../logistic.js';

export interface FittedCalibration {
  model: LogisticModel;
  fitted: { command: string; datasets: string[]; questions: number; cvFolds: number; cvEce: number; reader: string; date: string };
}

export const CALIBRATION: FittedCalibration = {
${modelLiteral(model)}
  fitted: ${tsObject(fitted)},
};
`;
}

/** The hop gate's fitted-constants file. */
export function fittedGateSource(model: LogisticModel, threshold: number, fitted: object): string {
  return `// The fitted constants of the hop gate (see gate.ts). Written by \`ragask calibrate --gate\`; refit with
// the command in \`fitted.command\`, never by hand.
import type { LogisticModel } from './logistic.js';

export interface FittedGate {
  model: LogisticModel;
  threshold: number;
  fitted: { command: string; datasets: string[]; checks: number; cvFolds: number; stoppedWrong: number; stoppedRight: number; date: string };
}

export const GATE: FittedGate = {
${modelLiteral(model)}
  threshold: ${threshold},
  fitted: ${tsObject(fitted)},
};
`;
}

/** The line ranker's fitted-constants file. */
export function fittedLinesSource(model: LogisticModel, fitted: object): string {
  return `// The fitted constants of the line ranker (see lines.ts). Written by \`ragask calibrate --lines\`;
// refit with the command in \`fitted.command\`, never by hand. null: not fitted, leads in the reading's order.
import type { LogisticModel } from '../logistic.js';

export interface FittedLines {
  model: LogisticModel | null;
  fitted: { command: string; datasets: string[]; questions: number; lines: number; date: string } | null;
}

export const LINES: FittedLines = {
${modelLiteral(model)}
  fitted: ${tsObject(fitted)},
};
`;
}

/** The span scorer's fitted-weights file. */
export function fittedSpansSource(features: readonly string[], weights: readonly number[], fitted: object): string {
  return `// The fitted weights of the span scorer (see span-scores.ts). Written by \`ragask calibrate --spans\`;
// refit with the command in \`fitted.command\`, never by hand. fitted null: the hand-set weights that
// came before the fit (swept one at a time on the tuning sets, BENCHMARKS.md).

export interface FittedSpans {
  features: readonly string[];
  /** Logits per unit of each feature, on the reader's own scale (its score's weight is 1). */
  weights: number[];
  fitted: { command: string; datasets: string[]; questions: number; spans: number; l2: number; date: string } | null;
}

export const SPANS: FittedSpans = {
  features: [${features.map((f) => `'${f}'`).join(', ')}],
  weights: ${numbers(weights.map((w) => Number(w.toPrecision(3))))},
  fitted: ${tsObject(fitted)},
};
`;
}

/** Where a fitted-constants file of the engine lives in a source checkout. */
export function sourceFile(...parts: string[]): string {
  const file = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'src', 'engine', ...parts);
  if (!fs.existsSync(file)) throw new UserError(`${file} is missing: --write needs a source checkout of ragask`);
  return file;
}

/** Writes a fitted-constants file and says so, with what makes the engine use it. */
export function writeFitted(file: string, source: string): void {
  fs.writeFileSync(file, source);
  process.stderr.write(`ragask: wrote ${file}; run \`npm run build\` to use it\n`);
}
