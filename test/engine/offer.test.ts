import { describe, expect, it } from 'vitest';
import { COMMON_NAME_IDF, likelyEnough, SUGGESTION_FLOOR, worthOffering } from '../../src/engine/offer.js';
import type { CandidateRef, Suggestion } from '../../src/engine/types.js';

type Offerable = Parameters<typeof worthOffering>[0];

/** A candidate that leads by a mention to a page of its own, by a rare name: one a person can judge. */
const judgeable = (over: Partial<Offerable> = {}, features: Partial<CandidateRef['features']> = {}): Offerable => ({
  linkDocId: 7,
  linkVia: 'mention',
  ownPageHeld: false,
  features: { link: 0.35, lookahead: 0.8, idf: 0.8, relevance: 1, question: 0, mlm: null, ...features },
  ...over,
});

describe('which suggestions a person is offered', () => {
  it('offers a rare name that leads to a page the chain has not read', () => {
    expect(worthOffering(judgeable())).toBe(true);
  });

  it('never one that leads nowhere, nor a name whose own page the chain already read', () => {
    expect(worthOffering(judgeable({ linkDocId: null }))).toBe(false);
    expect(worthOffering(judgeable({ ownPageHeld: true }))).toBe(false);
  });

  it('never a name found everywhere ("Linux → libc(7)"), unless a page is titled by it ("Project Falcon → its page")', () => {
    const common = { idf: COMMON_NAME_IDF / 2 };
    expect(worthOffering(judgeable({ linkVia: 'heading' }, { ...common, link: 0.4 }))).toBe(false);
    expect(worthOffering(judgeable({ linkVia: 'title' }, { ...common, link: 0.14 }))).toBe(false);
    expect(worthOffering(judgeable({ linkVia: 'title' }, { ...common, link: 1 }))).toBe(true);
  });

  it('lists, at a stop that asks on its own, only suggestions not unlikely to bring what is missing', () => {
    const at = (pRight: number): Pick<Suggestion, 'coherence'> => ({
      coherence: { pRight } as Suggestion['coherence'],
    });
    const listed = likelyEnough([at(SUGGESTION_FLOOR * 3), at(SUGGESTION_FLOOR / 3), at(SUGGESTION_FLOOR * 1.5)]);
    expect(listed.map((s) => s.coherence.pRight)).toEqual([SUGGESTION_FLOOR * 3, SUGGESTION_FLOOR * 1.5]);
  });
});
