import { describe, expect, it } from 'vitest';
import { CALIBRATION } from '../../src/engine/answer/calibration.fitted.js';
import { FEATURE_NAMES } from '../../src/engine/answer/confidence.js';
import { GATE } from '../../src/engine/gate.fitted.js';
import { GATE_FEATURES } from '../../src/engine/gate.js';
import { predict } from '../../src/engine/logistic.js';
import { rng as mulberry32 } from '../../src/eval/rng.js';
import { fitLogistic, reliability } from '../../src/eval/fit.js';

describe('logistic calibration', () => {
  it('recovers a known logistic relation from samples drawn from it', () => {
    const rand = mulberry32(7);
    const truth = { w: [2, -1.5], b: -0.5 };
    const X: number[][] = [];
    const y: number[] = [];
    for (let i = 0; i < 4000; i++) {
      const x = [rand() * 4 - 2, rand() * 4 - 2];
      const p = 1 / (1 + Math.exp(-(truth.b + truth.w[0]! * x[0]! + truth.w[1]! * x[1]!)));
      X.push(x);
      y.push(rand() < p ? 1 : 0);
    }
    const model = fitLogistic(X, y, ['a', 'b'], 0.01);
    // predictions match the generating probabilities closely on fresh points
    for (const x of [
      [0, 0],
      [1, -1],
      [-1.5, 1.5],
      [2, 2],
    ]) {
      const want = 1 / (1 + Math.exp(-(truth.b + truth.w[0]! * x[0]! + truth.w[1]! * x[1]!)));
      expect(Math.abs(predict(model, x) - want)).toBeLessThan(0.05);
    }
    // and they are calibrated on the sample: ECE well under a tenth
    const p = X.map((x) => predict(model, x));
    expect(reliability(p, y).ece).toBeLessThan(0.03);
  });

  it('measures a miscalibrated score as such', () => {
    // claims 0.95 but is right half the time
    const p = Array.from({ length: 200 }, () => 0.95);
    const right = Array.from({ length: 200 }, (_, i) => i % 2);
    const r = reliability(p, right);
    expect(r.ece).toBeCloseTo(0.45, 5);
    expect(r.bins[9]).toMatchObject({ count: 200 });
    expect(r.bins[9]!.accuracy).toBeCloseTo(0.5, 5);
  });

  it('regularisation keeps a feature that separates the sample perfectly finite', () => {
    const X = [[0], [0], [1], [1]];
    const y = [0, 0, 1, 1];
    const model = fitLogistic(X, y, ['x'], 1);
    expect(Number.isFinite(model.weights[0]!)).toBe(true);
    expect(predict(model, [1])).toBeGreaterThan(predict(model, [0]));
  });
});

describe('fitted constants against the code', () => {
  it("each fitted model's features are the code's feature list, in order", () => {
    expect(CALIBRATION.model.features).toEqual([...FEATURE_NAMES]);
    expect(GATE.model.features).toEqual([...GATE_FEATURES]);
    expect(CALIBRATION.model.weights).toHaveLength(FEATURE_NAMES.length);
    expect(GATE.model.weights).toHaveLength(GATE_FEATURES.length);
  });

  it('refuses a model fitted on other features, naming the refit command', () => {
    const model = { features: ['a', 'b'], mean: [0, 0], std: [1, 1], weights: [1, 1], bias: 0 };
    expect(predict(model, [0, 0], ['a', 'b'])).toBeCloseTo(0.5, 9);
    expect(() => predict(model, [0, 0], ['a', 'c'], 'npx ragask calibrate --write')).toThrow(
      /not the code's \(a, c\): refit it with `npx ragask calibrate --write`/,
    );
    expect(() => predict(model, [0, 0, 0], ['a', 'b', 'c'])).toThrow(/refit/);
  });
});
