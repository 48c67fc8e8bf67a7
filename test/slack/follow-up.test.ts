import { describe, expect, it } from 'vitest';
import { isFollowUp, looksLikeQuestion } from '../../src/slack/follow-up.js';

describe('thread etiquette: which replies are follow-ups for ragask', () => {
  it('takes a question by its form', () => {
    for (const q of [
      'and what about at −40 °C?',
      'What about the Heron buoy',
      'and who signs it',
      'Is that the Rev B datasheet',
      'ok, how long does it take?',
      'the offset at 0 °C?',
    ])
      expect(looksLikeQuestion(q)).toBe(true);
    for (const t of [
      'thanks!',
      'great, that helps',
      'and thanks for the link',
      'I will check with <@U2>',
      'lunch at noon',
      '',
    ])
      expect(looksLikeQuestion(t)).toBe(false);
  });

  it('is a follow-up only from someone who asked in the thread, and only a question', () => {
    const thread = { participants: ['U1'] };
    expect(isFollowUp(thread, 'U1', 'and at −40 °C?')).toBe(true);
    expect(isFollowUp(thread, 'U2', 'and at −40 °C?')).toBe(false);
    expect(isFollowUp(thread, 'U1', 'thanks, that is it')).toBe(false);
    expect(isFollowUp(null, 'U1', 'and at −40 °C?')).toBe(false);
  });
});
