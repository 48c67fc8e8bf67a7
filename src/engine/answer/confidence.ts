import { predict, type LogisticModel } from '../logistic.js';
import { CALIBRATION } from './calibration.fitted.js';
import type { ReadingFeatures } from './features.js';
import { MARGIN_CAP } from './reading.js';

/**
 * The confidence of an answer: a calibrated probability that the short answer is right (exact
 * match), from a logistic regression over features of the reading (calibration.fitted.ts holds its
 * constants; `ragask calibrate` refits them on QA datasets, with cross-validation, and prints the
 * reliability table it measured).
 */

/** Labels: high from 0.8, medium from 0.5; below that ragask declines to give a short answer. */
export const HIGH_CONFIDENCE = 0.8;
export const ANSWER_THRESHOLD = 0.5;

export type ConfidenceLabel = 'high' | 'medium' | 'low';

export function labelOf(p: number): ConfidenceLabel {
  return p >= HIGH_CONFIDENCE ? 'high' : p >= ANSWER_THRESHOLD ? 'medium' : 'low';
}

const clip = (x: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, x));

export const FEATURE_NAMES = [
  'span_score',
  'span_margin',
  'question_coverage',
  'corroborated',
  'yes_no',
  'comparison',
] as const;

/**
 * The features as numbers, in FEATURE_NAMES order (each defended in docs/benchmarks-history.md, "Answer
 * confidence"). Only what the reading says of itself, and fewer of those: the retrieval score and
 * chain position flipped sign between Wikipedia and manuals, and the reader's own P(answer), kind
 * and agreement did not help judged leave-one-set-out, so they are not features.
 */
export function featureVector(f: ReadingFeatures): number[] {
  const yesNo = f.kind === 'yes' || f.kind === 'no';
  return [
    yesNo ? 0 : clip(f.spanScore, -10, 30) / 10,
    clip(f.margin, 0, MARGIN_CAP) / MARGIN_CAP,
    f.coverage ?? 0,
    f.corroborated ? 1 : 0,
    yesNo ? 1 : 0,
    f.comparison === 'none' ? 0 : 1,
  ];
}

/** P(the answer is right) for a reading that gives a short answer; 0 for one that gives none. */
export function answerProbability(f: ReadingFeatures, model: LogisticModel = CALIBRATION.model): number {
  if (f.kind === 'none') return 0;
  return predict(model, featureVector(f), FEATURE_NAMES, CALIBRATION.fitted.command);
}
