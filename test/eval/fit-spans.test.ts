import { describe, expect, it } from 'vitest';
import { fitSpanWeights, firstRight, type SpanGroup } from '../../src/eval/fit-spans.js';

/**
 * Questions of three spans each. In half of them the reader's score (the offset) picks the right span
 * by 3 logits; in the other half it prefers a wrong span by 2, and the right span alone has feature 0
 * set. Feature 1 is set on every span, so it cannot tell them apart.
 */
function groups(n: number): SpanGroup[] {
  return Array.from({ length: n }, (_, i) =>
    i % 2
      ? {
          offset: [2, 0, -1],
          x: [
            [0, 1],
            [1, 1],
            [0, 1],
          ],
          y: [0, 1, 0],
        }
      : {
          offset: [0, 3, -1],
          x: [
            [0, 1],
            [0, 1],
            [0, 1],
          ],
          y: [0, 1, 0],
        },
  );
}

describe('the span scorer fit', () => {
  it('gives a feature that marks the right span more than the reader prefers a wrong one by', () => {
    const w = fitSpanWeights(groups(40), 2, 1);
    // in the reader's logits: more than the 2 by which it prefers the wrong span
    expect(w[0]).toBeGreaterThan(3);
    // a feature every span has earns nothing
    expect(Math.abs(w[1]!)).toBeLessThan(0.01);
    expect(groups(4).every((g) => firstRight(g, w))).toBe(true);
    // the reader's own choice, with no weights, is the wrong span in half of them
    expect(groups(4).filter((g) => firstRight(g, [0, 0])).length).toBe(2);
  });

  it('learns nothing from questions whose spans are all right or all wrong', () => {
    const uninformative: SpanGroup[] = [
      { offset: [1, 0], x: [[1], [0]], y: [1, 1] },
      { offset: [1, 0], x: [[0], [1]], y: [0, 0] },
    ];
    expect(fitSpanWeights(uninformative, 1, 1)).toEqual([0]);
  });

  it("refuses a fit where the reader's own score points away from the right spans", () => {
    const misread: SpanGroup[] = Array.from({ length: 10 }, () => ({ offset: [2, 0], x: [[0], [0]], y: [0, 1] }));
    expect(() => fitSpanWeights(misread, 1, 1)).toThrow(/no positive weight/);
  });

  it('a question without spans has no right first span', () => {
    expect(firstRight({ offset: [], x: [], y: [] }, [1])).toBe(false);
  });
});
