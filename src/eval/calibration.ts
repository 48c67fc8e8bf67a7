import { predict } from '../engine/logistic.js';
import { fitLogistic } from './fit.js';

/** One labelled example of a fitted probability: its set, its features and whether it was right. */
export interface LabelledRow {
  set: string;
  x: readonly number[];
  y: number;
}

/**
 * Leave one set out: for each set, a logistic fit on every other set, and its predictions on the
 * held-out set's rows (in their order). What a fitted confidence is worth on data like none it saw.
 */
export function leaveOneSetOut(
  rows: readonly LabelledRow[],
  names: readonly string[],
  l2: number,
): Map<string, { p: number[]; y: number[] }> {
  const out = new Map<string, { p: number[]; y: number[] }>();
  for (const set of [...new Set(rows.map((r) => r.set))]) {
    const train = rows.filter((r) => r.set !== set);
    const held = rows.filter((r) => r.set === set);
    if (!train.length) continue;
    const model = fitLogistic(
      train.map((r) => r.x),
      train.map((r) => r.y),
      names,
      l2,
    );
    out.set(set, { p: held.map((r) => predict(model, r.x)), y: held.map((r) => r.y) });
  }
  return out;
}
