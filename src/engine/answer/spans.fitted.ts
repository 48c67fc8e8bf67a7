// The fitted weights of the span scorer (see span-scores.ts). Written by `ragask calibrate --spans`;
// refit with the command in `fitted.command`, never by hand. fitted null: the hand-set weights,
// swept one at a time on the tuning sets; a fit on eight sets (`npx ragask calibrate --spans
// --dataset <the tuning sets and data/sample> --l2 0.3`) ranked as many first spans right held out
// (144 of 529 against 145) and moved the replies both ways, so they stay (docs/benchmarks-history.md, "The span
// scorer, fitted"). The weights of a table cell's label named by the question and of a table row's condition
// (6 each) went with their ablation (docs/benchmarks-history.md, "Every rule family ablated again").

export interface FittedSpans {
  features: readonly string[];
  /** Logits per unit of each feature, on the reader's own scale (its score's weight is 1). */
  weights: number[];
  fitted: { command: string; datasets: string[]; questions: number; spans: number; l2: number; date: string } | null;
}

export const SPANS: FittedSpans = {
  features: ['typed', 'misfit', 'stated_default', 'window_log_odds'],
  weights: [3, -9, 6, 3],
  fitted: null,
};
