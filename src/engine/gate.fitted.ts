// The fitted constants of the hop gate (see gate.ts). Written by `ragask calibrate --gate`; refit with
// the command in `fitted.command`, never by hand.
import type { LogisticModel } from './logistic.js';

export interface FittedGate {
  model: LogisticModel;
  threshold: number;
  fitted: {
    command: string;
    datasets: string[];
    checks: number;
    cvFolds: number;
    stoppedWrong: number;
    stoppedRight: number;
    date: string;
  };
}

export const GATE: FittedGate = {
  model: {
    features: [
      'cosine',
      'directional',
      'drift',
      'bridge_confidence',
      'bridge_score',
      'score_margin',
      'link',
      'lookahead',
      'idf',
      'relevance',
      'from_question',
      'later_hop',
      'evidence_rerank',
      'coverage',
    ],
    mean: [
      0.945614, 0.199243, -0.358068, 0.621491, 0.573424, 0.176947, 0.613693, 0.622387, 0.741356, 0.823889, 0.0424028,
      0.498233, 0.587546, 0.811689,
    ],
    std: [
      0.0415388, 0.178927, 0.136842, 0.178204, 0.110469, 0.159861, 0.299841, 0.213561, 0.123085, 0.252664, 0.201506,
      0.499997, 0.128079, 0.166974,
    ],
    weights: [
      -0.474952, 0.0312454, 0.183382, 0.477649, -0.0303796, 0.373795, 0.152465, -0.667015, 0.133772, 0.636292, 0.376682,
      -0.237826, 0.0418926, -0.399165,
    ],
    bias: -2.21453,
  },
  threshold: 0.07,
  fitted: {
    command:
      'npx ragask calibrate --gate --dataset ../shared/datasets/hotpotqa-train-100 --dataset ../shared/datasets/musique-100 --dataset .tmp/dev-hotpot-a --folds 5 --l2 1 --max-stopped-right 0.1 --write',
    datasets: ['hotpotqa-train-100', 'musique-100', 'dev-hotpot-a'],
    checks: 566,
    cvFolds: 5,
    stoppedWrong: 0.551,
    stoppedRight: 0.0952,
    date: '2026-11-30',
  },
};
