/** Fitting the engine's calibrated probabilities, and measuring them: tooling of `ragask calibrate` and `ragask eval`, outside the engine (which only predicts). */
import { type LogisticModel, sigmoid } from '../engine/logistic.js';

/**
 * L2-regularised logistic regression by Newton's method on standardised features (a dozen features
 * and a few hundred questions: the exact optimum in a few iterations, no learning rate to tune).
 */
export function fitLogistic(
  X: readonly (readonly number[])[],
  y: readonly number[],
  names: readonly string[],
  l2 = 1,
): LogisticModel {
  const n = X.length;
  const d = names.length;
  const mean = Array.from({ length: d }, (_, j) => X.reduce((s, x) => s + x[j]!, 0) / Math.max(1, n));
  const std = Array.from(
    { length: d },
    (_, j) => Math.sqrt(X.reduce((s, x) => s + (x[j]! - mean[j]!) ** 2, 0) / Math.max(1, n)) || 1,
  );
  const Z = X.map((x) => [1, ...x.map((v, j) => (v - mean[j]!) / std[j]!)]);
  const w = new Array<number>(d + 1).fill(0);
  for (let iter = 0; iter < 50; iter++) {
    const grad = new Array<number>(d + 1).fill(0);
    const H = Array.from({ length: d + 1 }, () => new Array<number>(d + 1).fill(0));
    for (let i = 0; i < n; i++) {
      const z = Z[i]!;
      const p = sigmoid(z.reduce((s, v, j) => s + v * w[j]!, 0));
      const r = p - y[i]!;
      const s = p * (1 - p);
      for (let a = 0; a <= d; a++) {
        grad[a]! += r * z[a]!;
        for (let b = 0; b <= d; b++) H[a]![b]! += s * z[a]! * z[b]!;
      }
    }
    // the bias is not penalised
    for (let a = 1; a <= d; a++) {
      grad[a]! += l2 * w[a]!;
      H[a]![a]! += l2;
    }
    H[0]![0]! += 1e-9;
    const step = solve(H, grad);
    let moved = 0;
    for (let a = 0; a <= d; a++) {
      w[a]! -= step[a]!;
      moved = Math.max(moved, Math.abs(step[a]!));
    }
    if (moved < 1e-8) break;
  }
  return { features: [...names], mean, std, weights: w.slice(1), bias: w[0]! };
}

/** Gaussian elimination with partial pivoting (H is small, symmetric, positive definite). */
export function solve(A: number[][], b: number[]): number[] {
  const n = b.length;
  const M = A.map((row, i) => [...row, b[i]!]);
  for (let c = 0; c < n; c++) {
    let p = c;
    for (let r = c + 1; r < n; r++) if (Math.abs(M[r]![c]!) > Math.abs(M[p]![c]!)) p = r;
    [M[c], M[p]] = [M[p]!, M[c]!];
    const piv = M[c]![c]! || 1e-12;
    for (let r = c + 1; r < n; r++) {
      const f = M[r]![c]! / piv;
      for (let k = c; k <= n; k++) M[r]![k]! -= f * M[c]![k]!;
    }
  }
  const x = new Array<number>(n).fill(0);
  for (let r = n - 1; r >= 0; r--) {
    let s = M[r]![n]!;
    for (let k = r + 1; k < n; k++) s -= M[r]![k]! * x[k]!;
    x[r] = s / (M[r]![r]! || 1e-12);
  }
  return x;
}

export interface ReliabilityBin {
  from: number;
  to: number;
  count: number;
  /** Mean predicted probability and the share that was right. */
  confidence: number;
  accuracy: number;
}

/** Ten equal-width bins of predicted probability against the observed share right, and the ECE. */
export function reliability(
  p: readonly number[],
  correct: readonly number[],
  bins = 10,
): { bins: ReliabilityBin[]; ece: number } {
  const out: ReliabilityBin[] = Array.from({ length: bins }, (_, i) => ({
    from: i / bins,
    to: (i + 1) / bins,
    count: 0,
    confidence: 0,
    accuracy: 0,
  }));
  p.forEach((x, i) => {
    const b = out[Math.min(bins - 1, Math.floor(x * bins))]!;
    b.count++;
    b.confidence += x;
    b.accuracy += correct[i]!;
  });
  let ece = 0;
  for (const b of out) {
    if (!b.count) continue;
    b.confidence /= b.count;
    b.accuracy /= b.count;
    ece += (b.count / Math.max(1, p.length)) * Math.abs(b.accuracy - b.confidence);
  }
  return { bins: out, ece };
}

/** Rows of a reliability table as `ragask eval` and `ragask calibrate` print it. */
export function formatReliability(bins: readonly ReliabilityBin[], indent = '  '): string[] {
  const lines = [
    `${indent}${'P(correct)'.padEnd(12)}${'answers'.padStart(8)}${'mean P'.padStart(9)}${'right'.padStart(8)}`,
  ];
  for (const b of bins) {
    if (!b.count) continue;
    lines.push(
      `${indent}${`${b.from.toFixed(1)}–${b.to.toFixed(1)}`.padEnd(12)}${String(b.count).padStart(8)}${b.confidence.toFixed(2).padStart(9)}${b.accuracy.toFixed(2).padStart(8)}`,
    );
  }
  return lines;
}
