// The fitted constants of the line ranker (see lines.ts). Written by `ragask calibrate --lines`;
// refit with the command in `fitted.command`, never by hand. null: not fitted, leads in the reading's order.
import type { LogisticModel } from '../logistic.js';

export interface FittedLines {
  model: LogisticModel | null;
  fitted: { command: string; datasets: string[]; questions: number; lines: number; date: string } | null;
}

export const LINES: FittedLines = { model: null, fitted: null };
