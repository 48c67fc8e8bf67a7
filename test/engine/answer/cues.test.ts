import { describe, expect, it } from 'vitest';
import { cueMatcher, openingMatcher, whPhraseMatcher } from '../../../src/engine/answer/cues.js';

describe('a cue list as data', () => {
  const says = cueMatcher(['by default', 'out of the box', 'default']);
  it('matches a cue as whole words, whatever its case and the space inside it', () => {
    expect(says('Which codec is used BY  DEFAULT here?')).toBe(true);
    expect(says('What ships out of the\\nbox with the agent?'.replace('\\n', '\n'))).toBe(true);
  });
  it('never matches a cue inside another word, nor reads a cue as a pattern', () => {
    expect(says('Where does the defaultsfile live?')).toBe(false);
    expect(says('What does the nodefault flag do?')).toBe(false);
    expect(says('What does default_mode set?')).toBe(false);
    expect(cueMatcher(['a.b'])('the axb flag')).toBe(false);
    expect(cueMatcher(['a.b'])('the a.b flag')).toBe(true);
    expect(cueMatcher([])('anything at all')).toBe(false);
  });
});

describe('an opening cue and a wh-phrase headed by a noun', () => {
  it('hears an opening only at the start, as whole words', () => {
    const opens = openingMatcher(['where', 'how to']);
    expect(opens('  Where did the parcels land?')).toBe(true);
    expect(opens('How to   fold the sheets?')).toBe(true);
    expect(opens('Whereabouts did the parcels land?')).toBe(false);
    expect(opens('Ask them where the parcels are')).toBe(false);
    expect(openingMatcher([])('where is it')).toBe(false);
  });
  it('hears a which/what phrase whose head noun is listed, within its reach', () => {
    const asksGadget = whPhraseMatcher(['gadget', 'widget'], 2);
    expect(asksGadget("What's the blue gadget for?")).toBe(true);
    expect(asksGadget('Which two small widget kinds are sold?')).toBe(true);
    expect(asksGadget('Which very tiny brass gadget is it?')).toBe(false);
    expect(asksGadget('Whatever gadget you like')).toBe(false);
    expect(asksGadget('Which gadgetry is it?')).toBe(false);
    expect(whPhraseMatcher([], 2)('Which one?')).toBe(false);
  });
});
