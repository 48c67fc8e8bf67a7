// The fitted constants of the line ranker (see lines.ts). Written by `ragask calibrate --lines`;
// refit with the command in `fitted.command`, never by hand. null: not fitted, leads in the reading's order.
import type { LogisticModel } from '../logistic.js';

export interface FittedLines {
  model: LogisticModel | null;
  fitted: { command: string; datasets: string[]; questions: number; lines: number; date: string } | null;
}

export const LINES: FittedLines = {
  model: {
    features: [
      'span_score',
      'has_span',
      'chosen',
      'span_rank',
      'passage_rank',
      'retrieval',
      'coverage',
      'context_coverage',
      'in_snippet',
      'first_sentence',
      'length',
      'entry',
      'typed',
      'untyped',
      'cosine',
    ],
    mean: [
      -5.49298, 0.411907, 0.0596915, 3.35443, 1.11875, 0.734469, 0.150016, 0.229646, 0.757714, 0.494264, 2.72425,
      0.328758, 0.270411, 0.298022, 0.505909,
    ],
    std: [
      6.92365, 0.492178, 0.236914, 1.25234, 0.678395, 0.137352, 0.137182, 0.14672, 0.428467, 0.499967, 0.714072,
      0.469762, 0.444172, 0.457389, 0.138195,
    ],
    weights: [
      0.407585, -0.43525, 0.18143, -0.262222, -0.444863, 0.111284, 0.271577, 0.0310326, 0.131438, -0.0747958, 0.0172093,
      0.37108, 0.173829, -0.241513, 0.185302,
    ],
    bias: -2.87633,
  },
  fitted: {
    command:
      'npx ragask calibrate --lines --dataset ../shared/datasets/teamqa/lighttpd --dataset ../shared/datasets/teamqa/engpractices --dataset ../shared/datasets/teamqa/gdsway --dataset ../shared/datasets/teamqa/opsman --dataset ../shared/datasets/teamqa/opsman2 --dataset ../shared/datasets/teamqa/haproxy --dataset ../shared/datasets/teamqa/bind9 --dataset ../shared/datasets/teamqa/exim --dataset ../shared/datasets/teamqa/postfix --dataset ../shared/datasets/teamqa/rsyslog --dataset ../shared/datasets/teamqa/playbook --dataset ../shared/datasets/teamqa/runbooks --dataset ../shared/datasets/teamqa/python --folds 5 --l2 1 --write',
    datasets: [
      'lighttpd',
      'engpractices',
      'gdsway',
      'opsman',
      'opsman2',
      'haproxy',
      'bind9',
      'exim',
      'postfix',
      'rsyslog',
      'playbook',
      'runbooks',
      'python',
    ],
    questions: 1520,
    lines: 25280,
    date: '2026-12-05',
  },
};
