import { describe, expect, it } from 'vitest';
import { cueMatcher } from '../../../src/engine/answer/cues.js';

describe('a cue list as data', () => {
  const says = cueMatcher(['by default', 'out of the box', 'default']);
  it('matches a cue as whole words, whatever its case and the space inside it', () => {
    expect(says('Which codec is used BY  DEFAULT here?')).toBe(true);
    expect(says('What ships out of the\\nbox with the agent?'.replace('\\n', '\n'))).toBe(true);
  });
  it('never matches a cue inside another word, nor reads a cue as a pattern', () => {
    expect(says('Where does the defaultsfile live?')).toBe(false);
    expect(says('What does the nodefault flag do?')).toBe(false);
    expect(cueMatcher(['a.b'])('the axb flag')).toBe(false);
    expect(cueMatcher(['a.b'])('the a.b flag')).toBe(true);
    expect(cueMatcher([])('anything at all')).toBe(false);
  });
});
