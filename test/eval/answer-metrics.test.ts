import { describe, expect, it } from 'vitest';
import { answerEM, hotpotNormalize, isYesNo, scoreAnswer, tokenF1 } from '../../src/eval/metrics.js';
import { answerStats, type AnsweredEvidence } from '../../src/eval/run.js';

const answer = (value: string | null, p: number, proposed = value): AnsweredEvidence => ({
  value,
  proposed,
  kind: proposed === null ? 'none' : 'span',
  p,
  label: p >= 0.8 ? 'high' : p >= 0.5 ? 'medium' : 'low',
  features: null,
});

describe('answer metrics (HotpotQA normalisation)', () => {
  it('normalises as HotpotQA does', () => {
    expect(hotpotNormalize('The  Beatles!')).toBe('beatles');
    expect(hotpotNormalize('an apple, a pear')).toBe('apple pear');
    expect(answerEM('the Beatles', 'Beatles')).toBe(1);
    expect(answerEM('March 14', 'March 14, 2000')).toBe(0);
  });

  it('scores token F1, with yes/no only matching themselves', () => {
    expect(tokenF1('March 14', 'March 14, 2000')).toBeCloseTo(0.8, 5);
    expect(tokenF1('yes', 'no')).toBe(0);
    expect(tokenF1('no', 'no')).toBe(1);
    expect(tokenF1('no way', 'no')).toBe(0);
    expect(scoreAnswer('Ed Wood', ['Edward Davis Wood Jr.', 'Ed Wood'])).toEqual({ em: 1, f1: 1 });
    expect(scoreAnswer(null, ['x'])).toEqual({ em: 0, f1: 0 });
    expect(isYesNo(['yes'])).toBe(true);
    expect(isYesNo(['Yes', 'no'])).toBe(true);
    expect(isYesNo(['Paris'])).toBe(false);
  });

  it('computes EM/F1 with declined answers at 0, answered share, precision of high, and ECE on a known set', () => {
    const rows = [
      { q: { answers: ['Paris'] }, answer: answer('Paris', 0.88) }, // high, right
      { q: { answers: ['Lyon'] }, answer: answer('Marseille', 0.82) }, // high, wrong
      { q: { answers: ['1999'] }, answer: answer('May 1999', 0.6) }, // medium, F1 2/3
      { q: { answers: ['no'] }, answer: answer(null, 0.3, 'no') }, // declined, proposal right
    ];
    const s = answerStats(rows)!;
    expect(s.answer_em).toBeCloseTo(1 / 4, 9);
    expect(s.answer_f1).toBeCloseTo((1 + 0 + 2 / 3 + 0) / 4, 9);
    expect(s.answered).toBeCloseTo(3 / 4, 9);
    expect(s.answer_em_answered).toBeCloseTo(1 / 3, 9);
    expect(s.answer_f1_answered).toBeCloseTo((1 + 2 / 3) / 3, 9);
    // what was proposed counts declined or not: the declined "no" was right
    expect(s.proposed_em).toBeCloseTo(2 / 4, 9);
    expect(s.proposed_f1).toBeCloseTo((1 + 0 + 2 / 3 + 1) / 4, 9);
    expect(s.high_answers).toBe(2);
    expect(s.high_precision).toBeCloseTo(0.5, 9);
    // right as a person judges a short answer: "May 1999" holds the gold "1999" as a whole word
    expect(s.proposed_right).toBeCloseTo(3 / 4, 9);
    // the reliability is of P(right) against that: bins 0.3 (1 right) | 0.6 (1 right) | 0.82, 0.88 (1 of 2 right, mean 0.85)
    const ece = (1 / 4) * Math.abs(1 - 0.3) + (1 / 4) * Math.abs(1 - 0.6) + (2 / 4) * Math.abs(0.5 - 0.85);
    expect(s.ece).toBeCloseTo(ece, 9);
  });
});
