/**
 * Fitting the span scorer's weights: a conditional logit over each question's competing spans
 * (McFadden's choice model). The reader's own score gets a free weight too (its logits are
 * overconfident: the fit gives them about 0.3), and the weights are returned divided by it, so they
 * are in the reader's logits and every margin measured on its scale keeps its meaning; the ranking
 * is the same.
 */

/** One question's competing spans: the reader's scores, their features, and which are right. */
export interface SpanGroup {
  offset: readonly number[];
  x: readonly (readonly number[])[];
  y: readonly number[];
}

import { solve } from './fit.js';

const MAX_ITERATIONS = 100;
const CONVERGED = 1e-7;

/** A group says something only when it holds a right span and a wrong one. */
const informative = (g: SpanGroup) => g.y.some((v) => v === 1) && g.y.some((v) => v === 0);

function logSumExp(xs: readonly number[]): number {
  const m = Math.max(...xs);
  return m + Math.log(xs.reduce((s, x) => s + Math.exp(x - m), 0));
}

/** Scores under θ = [the reader's weight, ...the features' weights]. */
const scoresOf = (g: SpanGroup, theta: readonly number[]) =>
  g.offset.map((o, i) => theta[0]! * o + g.x[i]!.reduce((s, v, j) => s + theta[j + 1]! * v, 0));

/** A span's inputs under θ: its reader score, then its features. */
const inputsOf = (g: SpanGroup, i: number) => [g.offset[i]!, ...g.x[i]!];

/** The L2 penalty, on the features' weights only (not the reader's). */
const penalty = (theta: readonly number[], l2: number) => (l2 / 2) * theta.slice(1).reduce((s, v) => s + v * v, 0);

/** −log P(a right span is chosen), summed, plus the L2 penalty. */
function loss(groups: readonly SpanGroup[], theta: readonly number[], l2: number): number {
  let total = penalty(theta, l2);
  for (const g of groups) {
    const s = scoresOf(g, theta);
    total += logSumExp(s) - logSumExp(s.filter((_, i) => g.y[i] === 1));
  }
  return total;
}

/** The softmax of a group's scores over the spans `keep` admits. */
function softmax(s: readonly number[], keep: (i: number) => boolean): number[] {
  const m = Math.max(...s.filter((_, i) => keep(i)));
  const e = s.map((v, i) => (keep(i) ? Math.exp(v - m) : 0));
  const z = e.reduce((a, b) => a + b, 0);
  return e.map((v) => v / z);
}

/** The gradient, and the covariance of the features under the model's choice (a positive-definite curvature). */
function gradientAndCurvature(groups: readonly SpanGroup[], theta: readonly number[], l2: number) {
  const d = theta.length;
  // the reader's weight is not penalised; a small ridge keeps the curvature invertible
  const ridge = (a: number) => (a === 0 ? 1e-6 : l2);
  const grad = theta.map((v, a) => (a === 0 ? 0 : l2 * v));
  const H = Array.from({ length: d }, (_, a) => Array.from({ length: d }, (_, b) => (a === b ? ridge(a) : 0)));
  for (const g of groups) {
    const s = scoresOf(g, theta);
    const p = softmax(s, () => true);
    const q = softmax(s, (i) => g.y[i] === 1);
    const inputs = g.offset.map((_, i) => inputsOf(g, i));
    const mean = Array.from({ length: d }, (_, j) => inputs.reduce((acc, x, i) => acc + p[i]! * x[j]!, 0));
    for (const [i, x] of inputs.entries())
      for (let a = 0; a < d; a++) {
        grad[a]! += (p[i]! - q[i]!) * x[a]!;
        for (let b = 0; b < d; b++) H[a]![b]! += p[i]! * (x[a]! - mean[a]!) * (x[b]! - mean[b]!);
      }
  }
  return { grad, H };
}

/**
 * The weights that make a right span the likeliest choice, in the reader's logits, from zero (a
 * feature earns its weight from the data or keeps none): damped Newton steps with a backtracking
 * line search.
 */
export function fitSpanWeights(all: readonly SpanGroup[], features: number, l2 = 1): number[] {
  const groups = all.filter(informative);
  let w = [1, ...new Array<number>(features).fill(0)];
  let current = loss(groups, w, l2);
  for (let iter = 0; iter < MAX_ITERATIONS; iter++) {
    const { grad, H } = gradientAndCurvature(groups, w, l2);
    const step = solve(H, [...grad]);
    let t = 1;
    let next = w.map((v, j) => v - t * step[j]!);
    let nextLoss = loss(groups, next, l2);
    while (nextLoss > current && t > 1e-6) {
      t /= 2;
      next = w.map((v, j) => v - t * step[j]!);
      nextLoss = loss(groups, next, l2);
    }
    if (nextLoss > current) break;
    const moved = current - nextLoss;
    w = next;
    current = nextLoss;
    if (moved < CONVERGED) break;
  }
  if (!(w[0]! > 0))
    throw new Error("the span scorer's fit gave the reader's score no positive weight: too few questions");
  return w.slice(1).map((v) => v / w[0]!);
}

/** Whether the span the weights (in the reader's logits) rank first is right (a question with no spans: not right). */
export function firstRight(g: SpanGroup, w: readonly number[]): boolean {
  if (!g.offset.length) return false;
  const s = scoresOf(g, [1, ...w]);
  let best = 0;
  for (let i = 1; i < s.length; i++) if (s[i]! > s[best]!) best = i;
  return g.y[best] === 1;
}
