import { describe, expect, it } from 'vitest';
import { analyze, entitiesOf, evidenceDensity, sentencesOf } from '../../src/models/nlp.js';

describe('NLP (wink-nlp English model)', () => {
  it('finds proper-noun spans and part codes as entities', () => {
    const a = analyze('Flight control runs on a Corvid FC-3 flight computer made by Corvid Avionics in Toulouse.');
    const e = entitiesOf(a);
    expect(e).toContain('Corvid FC-3');
    expect(e).toContain('Corvid Avionics');
    expect(e).toContain('Toulouse');
  });

  it('keeps names with letters outside Latin-1 whole (Gdańsk, not "Gda")', () => {
    const e = entitiesOf(analyze('Tomasz Brenner works in the Gdańsk office.'));
    expect(e).toContain('Gdańsk');
    expect(e).toContain('Tomasz Brenner');
  });

  it('does not take a capitalised common word at a sentence start or after "Key:" for a name', () => {
    const isCommonWord = (w: string) => ['storage', 'use', 'fixes'].includes(w.toLowerCase());
    const e = entitiesOf(analyze('Storage is cheap. Use the Halden Microsystems sensor. Change: Fixes a watchdog reset.'), { isCommonWord });
    expect(e).not.toContain('Storage');
    expect(e).not.toContain('Use');
    expect(e).not.toContain('Fixes');
    expect(e).toContain('Halden Microsystems');
  });

  it('gives character offsets that point into the original text', () => {
    const text = 'At −20 °C the offset of the Vantor TS-40 is +0.35 °C.';
    for (const m of analyze(text).mentions) expect(text.slice(m.start, m.end)).toBe(m.text);
  });

  it('rates a specific statement denser in evidence than boilerplate', () => {
    const specific = evidenceDensity(analyze('The Vantor TS-40 offset at −20 °C is +0.35 °C since 2024-02-01.'));
    const vague = evidenceDensity(analyze('Please make sure to read this page carefully before you begin.'));
    expect(specific).toBeGreaterThan(vague);
    expect(specific).toBeLessThanOrEqual(1);
  });

  it('splits sentences with offsets into the original text', () => {
    const text = 'First sentence here. Second one in Gdańsk! Third?';
    const s = sentencesOf(text);
    expect(s.length).toBe(3);
    for (const x of s) expect(text.slice(x.start, x.end)).toBe(x.text);
  });

  it('does not break a sentence where no space follows the full stop (a version, a file name)', () => {
    // the lines of Apache's SSLProtocol list, as the manual writes them
    const text = 'TLSv1.1 (when using OpenSSL 1.0.1 and later). TLSv1.3 (when using OpenSSL 1.1.1 and later) is the newest.';
    for (const split of [sentencesOf(text), analyze(text).sentences]) {
      expect(split.map((x) => x.text)).toEqual(['TLSv1.1 (when using OpenSSL 1.0.1 and later).', 'TLSv1.3 (when using OpenSSL 1.1.1 and later) is the newest.']);
      for (const x of split) expect(text.slice(x.start, x.end)).toBe(x.text);
    }
  });
});
