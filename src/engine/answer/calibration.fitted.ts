// The fitted constants of the answer confidence (see confidence.ts). Written by `ragask calibrate`;
// refit with the command in `fitted.command`, never by hand. One exact edit since (2026-12-06): the
// feature labelled_cell went with the table-cell label's ablation, its term at 0 (weight 0.256664 ×
// (0 − mean 0.0169173) / std 0.128962) folded into the bias (−0.922501 → −0.95617), so every reading
// the code can still produce gets the same P to rounding.
import type { LogisticModel } from '../logistic.js';

export interface FittedCalibration {
  model: LogisticModel;
  fitted: {
    command: string;
    datasets: string[];
    questions: number;
    cvFolds: number;
    cvEce: number;
    reader: string;
    date: string;
  };
}

export const CALIBRATION: FittedCalibration = {
  model: {
    features: ['span_score', 'span_margin', 'question_coverage', 'corroborated', 'yes_no', 'comparison'],
    mean: [0.762145, 0.269424, 0.427581, 0.12594, 0.0225564, 0.0469925],
    std: [0.372584, 0.273973, 0.203615, 0.331782, 0.148484, 0.211623],
    weights: [0.341571, 0.522889, 0.17602, 0.118176, 0.270404, 0.355815],
    bias: -0.95617,
  },
  fitted: {
    command:
      'npx ragask calibrate --dataset ../shared/datasets/hotpotqa-train-100 --dataset ../shared/datasets/musique-100 --dataset .tmp/dev-hotpot-a --dataset ../shared/datasets/teamdocs-apache --dataset .tmp/teamdocs-manpages --dataset ../shared/datasets/teamdocs-sqlite --dataset ../shared/datasets/teamdocs-handbook --folds 5 --l2 3 --write',
    datasets: [
      'hotpotqa-train-100',
      'musique-100',
      'dev-hotpot-a',
      'teamdocs-apache',
      'teamdocs-manpages',
      'teamdocs-sqlite',
      'teamdocs-handbook',
    ],
    questions: 532,
    cvFolds: 5,
    cvEce: 0.0401,
    reader: 'reader-minilm/int8',
    date: '2026-12-04',
  },
};
