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
    mean: [0.827654, 0.228659, 0.0282486, 0.427681, 0.177966, 0.0338983, 0.0677966],
    std: [0.373656, 0.228805, 0.165682, 0.214431, 0.382484, 0.180967, 0.251397],
    weights: [0.494139, 0.374199, 0.407244, 0.239232, 0.0378374, 0.44857, 0.489578],
    bias: -0.986012,
  },
  fitted: {
    command:
      'npx ragask calibrate --dataset ../shared/datasets/hotpotqa-train-100 --dataset ../shared/datasets/musique-100 --dataset .tmp/dev-hotpot-a --dataset ../shared/datasets/teamdocs-apache --report-on ../shared/datasets/teamdocs-git --folds 5 --l2 3 --write',
    datasets: ['hotpotqa-train-100', 'musique-100', 'dev-hotpot-a', 'teamdocs-apache'],
    questions: 354,
    cvFolds: 5,
    cvEce: 0.0796,
    reader: 'reader-minilm/int8',
    date: '2026-12-01',
  },
};
