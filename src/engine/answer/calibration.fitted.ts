// The fitted constants of the answer confidence (see confidence.ts). Written by `ragask calibrate`;
// refit with the command in `fitted.command`, never by hand.
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
    features: [
      'span_score',
      'span_margin',
      'labelled_cell',
      'question_coverage',
      'corroborated',
      'yes_no',
      'comparison',
    ],
    mean: [0.851954, 0.248587, 0.0227273, 0.44312, 0.136364, 0.030303, 0.0631313],
    std: [0.350673, 0.251826, 0.149033, 0.21988, 0.343174, 0.17142, 0.243199],
    weights: [0.507373, 0.448263, 0.513339, 0.140899, 0.110303, 0.3336, 0.484139],
    bias: -0.868738,
  },
  fitted: {
    command:
      'npx ragask calibrate --dataset ../shared/datasets/hotpotqa-train-100 --dataset ../shared/datasets/musique-100 --dataset .tmp/dev-hotpot-a --dataset ../shared/datasets/teamdocs-apache --dataset .tmp/teamdocs-manpages --report-on ../shared/datasets/teamdocs-git --folds 5 --l2 3 --write',
    datasets: ['hotpotqa-train-100', 'musique-100', 'dev-hotpot-a', 'teamdocs-apache', 'teamdocs-manpages'],
    questions: 396,
    cvFolds: 5,
    cvEce: 0.0368,
    reader: 'reader-minilm/int8',
    date: '2026-12-02',
  },
};
