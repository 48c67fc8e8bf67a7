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
    mean: [0.826615, 0.264299, 0.020202, 0.442333, 0.136364, 0.030303, 0.0631313],
    std: [0.373824, 0.268133, 0.140691, 0.217283, 0.343174, 0.17142, 0.243199],
    weights: [0.175691, 0.480991, 0.426847, 0.136716, 0.111894, 0.260927, 0.316886],
    bias: -0.688767,
  },
  fitted: {
    command:
      'npx ragask calibrate --dataset ../shared/datasets/hotpotqa-train-100 --dataset ../shared/datasets/musique-100 --dataset .tmp/dev-hotpot-a --dataset ../shared/datasets/teamdocs-apache --dataset .tmp/teamdocs-manpages --report-on ../shared/datasets/teamdocs-git --folds 5 --l2 3 --write',
    datasets: ['hotpotqa-train-100', 'musique-100', 'dev-hotpot-a', 'teamdocs-apache', 'teamdocs-manpages'],
    questions: 396,
    cvFolds: 5,
    cvEce: 0.042,
    reader: 'reader-minilm/int8',
    date: '2026-12-03',
  },
};
