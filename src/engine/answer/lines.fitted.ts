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
      -5.10951, 0.373898, 0.0479718, 3.41767, 1.17419, 0.724525, 0.16375, 0.233604, 0.623516, 0.385185, 2.78584,
      0.145326, 0.202116, 0.21505, 0.476923,
    ],
    std: [
      8.044, 0.483837, 0.213707, 1.19984, 0.692388, 0.170384, 0.158572, 0.166295, 0.484504, 0.486639, 0.653253,
      0.352429, 0.401579, 0.410857, 0.162088,
    ],
    weights: [
      0.323385, -0.414311, 0.157526, -0.347941, -0.336144, 0.0553485, 0.259678, -0.113982, 0.251733, 0.141566,
      0.0549737, 0.212957, 0.101703, -0.382607, 0.0637149,
    ],
    bias: -2.99659,
  },
  fitted: {
    command:
      'npx ragask calibrate --lines --dataset ../shared/datasets/teamdocs-apache --dataset ../shared/datasets/teamdocs-sqlite --dataset ../shared/datasets/teamdocs-handbook --dataset .tmp/teamdocs-manpages --dataset ../shared/datasets/hotpotqa-train-100 --dataset ../shared/datasets/musique-100 --folds 5 --l2 1 --write',
    datasets: [
      'teamdocs-apache',
      'teamdocs-sqlite',
      'teamdocs-handbook',
      'teamdocs-manpages',
      'hotpotqa-train-100',
      'musique-100',
    ],
    questions: 422,
    lines: 8505,
    date: '2026-12-04',
  },
};
