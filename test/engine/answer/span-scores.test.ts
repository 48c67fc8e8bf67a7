import { describe, expect, it } from 'vitest';
import { rankSpans, type FeaturedSpan } from '../../../src/engine/answer/span-scores.js';

/** A span as the scorer sees it: the reader's score and SPAN_FEATURES (typed, misfit, stated_default, window_log_odds). */
const span = (text: string, score: number, features: number[]): FeaturedSpan => ({
  text,
  score,
  features,
  passage: 0,
  window: 0,
  start: 0,
  end: text.length,
  pAnswer: 0.5,
  fit: 0,
});

describe('the span scorer', () => {
  const weights = [4, -5, 6, 3];

  it("adds the weighted features to the reader's score: a stated default passes what the reader prefers", () => {
    const ranked = rankSpans(
      [span('Number of seconds to wait', 9, [0, 1, 0, 0]), span('300', 1, [1, 0, 1, 0]), span('60', 2, [1, 0, 0, 0])],
      weights,
    );
    // 1 + 4 (typed) + 6 (stated default); 2 + 4; 9 − 5 (of another kind)
    expect(ranked.map((x) => x.text)).toEqual(['300', '60', 'Number of seconds to wait']);
    expect(ranked.map((x) => x.adjusted)).toEqual([11, 6, 4]);
  });

  it('keeps one reading per value, its best', () => {
    const ranked = rankSpans([span('5 min', 1, [0, 0, 0, 0]), span('5 min', 3, [0, 0, 0, 0])], weights);
    expect(ranked).toHaveLength(1);
    expect(ranked[0]!.adjusted).toBe(3);
  });

  it('refuses weights fitted on other features', () => {
    expect(() => rankSpans([], [1, 2, 3])).toThrow(/refit them with `npx ragask calibrate --spans/);
  });
});
