// The fitted constants of the answer confidence (see confidence.ts). Written by `ragask calibrate`;
// refit with the command in `fitted.command`, never by hand.
import type { LogisticModel } from '../logistic.js';

export interface FittedCalibration {
  model: LogisticModel;
  fitted: { command: string; datasets: string[]; questions: number; cvFolds: number; cvEce: number; reader: string; date: string };
}

export const CALIBRATION: FittedCalibration = {
  model: {
    features: [
      'reader_p_answer',
      'reader_p_kind',
      'span_score',
      'span_margin',
      'agreement',
      'conflict',
      'retrieval_score',
      'evidence_rank',
      'later_hop',
      'chain_weight',
      'confirmed_hop',
      'yes_no',
      'comparison_yesno',
      'comparison_attribute',
      'comparison_read',
      'chain_stopped',
      'answer_words',
    ],
    mean: [0.525131, 1.32841, 0.860049, 0.133328, 0.0280702, 0.568421, 0.746442, 0.250659, 0.0526316, 0.982748, 0.947368, 0.0421053, 0.0385965, 0.0210526, 0.0210526, 0.736842, 0.40505],
    std: [0.296739, 0.435408, 0.364411, 0.220565, 0.10811, 0.495296, 0.188512, 0.194097, 0.223297, 0.0818645, 0.223297, 0.200829, 0.192631, 0.14356, 0.14356, 0.440347, 0.211463],
    weights: [-0.0102273, -0.21668, 0.904909, -0.148473, -0.129857, -0.10496, -0.411882, -0.484902, 0.0565689, -0.229599, -0.0565689, 0.388951, 0.00370125, 1.02691, 0.228315, 0.0688939, -0.925203],
    bias: -1.43041,
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
