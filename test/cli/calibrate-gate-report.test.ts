import { describe, expect, it } from 'vitest';
import { reportedLines } from '../../src/cli/commands/calibrate-gate.js';

/** A model that reads only the first feature: P(right) = sigmoid(x0). */
const model = { features: ['cosine'], mean: [0], std: [1], weights: [1], bias: 0 };
const check = (x: number, right: boolean) => ({
  right,
  stopped: false,
  missing: right ? 1 : 0,
  pRight: null,
  cosine: 0.9,
  features: [x],
});

describe('calibrate --gate --report-on', () => {
  it('counts, per set never fitted on, the wrong and right hops the fit stops at its threshold', () => {
    const rows = [
      { dataset: 'alpha', key: 'a1', check: check(-3, false) }, // P 0.05: stopped
      { dataset: 'alpha', key: 'a2', check: check(-3, false) }, // stopped
      { dataset: 'alpha', key: 'a3', check: check(3, false) }, // P 0.95: passes
      { dataset: 'alpha', key: 'a4', check: check(3, true) }, // passes
      { dataset: 'beta', key: 'b1', check: check(-3, true) }, // a right hop stopped
    ];
    expect(reportedLines(rows, model, 0.5)).toEqual([
      '',
      'never fitted on (the fit on all --dataset sets, threshold 0.50):',
      '  alpha: stops 2 of 3 wrong-bridge hops, 0 of 1 right ones',
      '  beta: stops 0 of 0 wrong-bridge hops, 1 of 1 right ones',
    ]);
    expect(reportedLines([], model, 0.5)).toEqual([]);
  });
});
