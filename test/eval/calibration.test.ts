import { describe, expect, it } from 'vitest';
import { leaveOneSetOut, type LabelledRow } from '../../src/eval/calibration.js';
import { rng } from '../../src/eval/rng.js';
import { reliability } from '../../src/eval/fit.js';

// Synthetic sets with a known answer: in "a" and "b" the label follows the feature (P(y=1) =
// sigmoid(3x)); in "flipped" it goes against it. Fitted without a set, a fit must carry over to a
// set like the others and must fail on the flipped one.
function set(name: string, n: number, sign: number, seed: number): LabelledRow[] {
  const random = rng(seed);
  return Array.from({ length: n }, () => {
    const x = 2 * random() - 1;
    const y = random() < 1 / (1 + Math.exp(-3 * sign * x)) ? 1 : 0;
    return { set: name, x: [x], y };
  });
}

describe('leave one set out', () => {
  it('judges each set on a fit without it: calibrated where the sets agree, not where one is flipped', () => {
    const rows = [...set('a', 400, 1, 1), ...set('b', 400, 1, 2), ...set('flipped', 400, -1, 3)];
    const held = leaveOneSetOut(rows, ['x'], 1);
    expect([...held.keys()].sort()).toEqual(['a', 'b', 'flipped']);
    for (const name of ['a', 'b', 'flipped']) expect(held.get(name)!.p).toHaveLength(400);
    // fitted on b and flipped together, the feature says little: a is judged poorly but not inverted;
    // fitted on a and b, the flipped set gets confident wrong predictions
    const ece = (name: string) => reliability(held.get(name)!.p, held.get(name)!.y).ece;
    expect(ece('flipped')).toBeGreaterThan(0.25);
    const rowsAgreeing = [...set('a', 400, 1, 1), ...set('b', 400, 1, 2)];
    const agreeing = leaveOneSetOut(rowsAgreeing, ['x'], 1);
    const agreeingEce = (name: string) => reliability(agreeing.get(name)!.p, agreeing.get(name)!.y).ece;
    expect(agreeingEce('a')).toBeLessThan(0.08);
    expect(agreeingEce('b')).toBeLessThan(0.08);
  });

  it('predicts each held-out row from a fit that never saw its set', () => {
    // a set whose every label is 1 while the others are all 0: left out, its rows are predicted 0-ish
    const rows: LabelledRow[] = [
      ...Array.from({ length: 50 }, (_, i) => ({ set: 'ones', x: [i / 50], y: 1 })),
      ...Array.from({ length: 50 }, (_, i) => ({ set: 'zeros', x: [i / 50], y: 0 })),
      ...Array.from({ length: 50 }, (_, i) => ({ set: 'zeros2', x: [i / 50], y: 0 })),
    ];
    const held = leaveOneSetOut(rows, ['x'], 1);
    expect(Math.max(...held.get('ones')!.p)).toBeLessThan(0.1);
  });
});
