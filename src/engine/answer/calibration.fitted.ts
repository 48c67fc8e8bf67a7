// The fitted constants of the answer confidence (see confidence.ts). Written by `ragask calibrate`;
// refit with the command in `fitted.command`, never by hand.
import type { LogisticModel } from '../logistic.js';

export interface FittedCalibration {
  model: LogisticModel;
  fitted: { command: string; datasets: string[]; questions: number; cvFolds: number; cvEce: number; reader: string; date: string };
}

export const CALIBRATION: FittedCalibration = {
  model: {
    features: ['span_score', 'span_margin', 'labelled_cell', 'question_coverage', 'yes_no', 'comparison'],
    mean: [0.825802, 0.233131, 0.0282486, 0.42756, 0.0338983, 0.0677966],
    std: [0.371446, 0.229853, 0.165682, 0.215119, 0.180967, 0.251397],
    weights: [0.451892, 0.359018, 0.399906, 0.239849, 0.433244, 0.481084],
    bias: -0.99126,
  },
  fitted: {
    command:
      'npx ragask calibrate --dataset ../shared/datasets/hotpotqa-train-100 --dataset ../shared/datasets/musique-100 --dataset .tmp/dev-hotpot-a --dataset ../shared/datasets/teamdocs-apache --report-on ../shared/datasets/teamdocs-git --folds 5 --l2 3 --write',
    datasets: ['hotpotqa-train-100', 'musique-100', 'dev-hotpot-a', 'teamdocs-apache'],
    questions: 354,
    cvFolds: 5,
    cvEce: 0.0662,
    reader: 'reader-minilm/int8',
    date: '2026-12-01',
  },
};
