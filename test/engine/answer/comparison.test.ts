import { describe, expect, it } from 'vitest';
import {
  attributeOf,
  choiceOptions,
  parseComparison,
  parseDate,
  pickByValue,
} from '../../../src/engine/answer/comparison.js';

describe('comparison questions', () => {
  it('finds the two options of a choice however the question places them', () => {
    expect(choiceOptions('Who is older, Ada Brook or Carl Dunn?')).toEqual(['Ada Brook', 'Carl Dunn']);
    expect(choiceOptions('Between Shibataea and Pediocactus, which is a genus of bamboo?')).toEqual([
      'Shibataea',
      'Pediocactus',
    ]);
    // "out of A and B", "Did/Is A or B …" and "Which X, A or B, …" went with the ablation: each read a
    // question or two that another pattern or the reader's own reading answered the same
    expect(choiceOptions('Who is older out of Nell Varga and Piet Ormond?')).toBeNull();
    expect(choiceOptions('Which magazine was published first Guitar World or Chic ?')).toEqual([
      'Guitar World',
      'Chic',
    ]);
    expect(choiceOptions('Is the Quillwort or Brackenfold native to Wales?')).toBeNull();
    // an article before an option is dropped, capital or not
    expect(choiceOptions('Which choir was formed first The Larkhills or Velvet Moth ?')).toEqual([
      'Larkhills',
      'Velvet Moth',
    ]);
    expect(choiceOptions('Which plant is larger, the Pterocarya or the Cotula?')).toEqual(['Pterocarya', 'Cotula']);
  });

  it('does not read a list in a bridge question as a choice', () => {
    expect(parseComparison('Who leads the project whose drone lost telemetry on 2024-03-14?')).toBeNull();
    expect(parseComparison('What media company produced the film with WingNut Films and New Line Cinema?')).toBeNull();
    expect(parseComparison('In which city is the manufacturer of the sensor based?')).toBeNull();
  });

  it('tells yes/no comparisons (auxiliaries and sameness of data/comparison.json) from choices', () => {
    expect(parseComparison('Were Ilse Marr and Tove Lund of the same nationality?')?.kind).toBe('yesno');
    expect(parseComparison('Do Ilse Marr and Tove Lund have a publisher in common?')?.kind).toBe('yesno');
    // a statement asked as a question went with the ablation (where it fired, it gave a wrong answer)
    expect(parseComparison('Ilse Marr and Tove Lund are both poets?')).toBeNull();
    expect(parseComparison('Which film came out first, Quiet Harbour or The Long Ferry?')).toEqual({
      kind: 'choice',
      options: ['Quiet Harbour', 'Long Ferry'],
      attribute: null,
    });
  });

  it('reads which attribute a choice compares and which way wins', () => {
    // an age is read as a founding; the reading asks for a birth where the option's passage says "born"
    expect(attributeOf('Who is older, Ada Brook or Carl Dunn?')).toMatchObject({
      template: 'When was {} founded?',
      value: 'date',
      pick: 'min',
    });
    expect(attributeOf('Who was born later, Ada Brook or Carl Dunn')).toMatchObject({
      template: 'When was {} founded?',
      pick: 'max',
    });
    expect(attributeOf("Which magazine was started first, Arthur's Magazine or First for Women?")).toMatchObject({
      template: 'When was {} started?',
      pick: 'min',
    });
    // "died first" fired on no evaluation question, so it went: the reader picks between the options
    expect(attributeOf('Who died first, Orla Penn or Tam Rivers?')).toBeNull();
    // a count ("more acts") went with the ablation: the reader picks between the options
    expect(attributeOf('Which opera has more acts, Salt Moon or Glass Orchard?')).toBeNull();
    // the attribute of something one hop away is not read off the options' own passages
    expect(attributeOf('Which film has the director who was born later, Stage Kisses or The Lame Devil?')).toBeNull();
    expect(attributeOf('Which is an herb, Trachymene or Elaeagnus?')).toBeNull();
  });

  it('reads each word list of data/comparison.json, in phrasing written for the test', () => {
    // eventVerbs with earlyWords / lateWords: the verb the question says, as written
    expect(attributeOf('Which bakery opened sooner, Crumb Hall or Oat Loft?')).toMatchObject({
      template: 'When was {} opened?',
      pick: 'min',
    });
    expect(attributeOf('Which ferry was launched more recently, Gull or Tern?')).toMatchObject({
      template: 'When was {} launched?',
      pick: 'max',
    });
    // ageWords, and olderWords for which way wins
    expect(attributeOf('Which singer is the youngest, Ivo Lark or Bea Sand?')).toMatchObject({
      template: 'When was {} founded?',
      pick: 'max',
    });
    expect(attributeOf('Which bridge is older, Pell Span or Moss Arch?')).toMatchObject({
      template: 'When was {} founded?',
      pick: 'min',
    });
    // comparatives: options after a comparative without a comma
    expect(choiceOptions('Which tower is taller Brim Keep or Sallow Mast?')).toEqual(['Brim Keep', 'Sallow Mast']);
  });

  it('orders dates read off spans', () => {
    expect(parseDate('4 July 1952')).toBe(19520704);
    expect(parseDate('July 4, 1952')).toBe(19520704);
    expect(parseDate('March 1949')).toBe(19490300);
    expect(parseDate('c. 1450')).toBe(14500000);
    expect(parseDate('no date here')).toBeNull();
    const older = { template: 'When was {} born?', value: 'date' as const, pick: 'min' as const };
    expect(pickByValue(older, '12 May 1950', '3 March 1948')).toBe(1);
    expect(pickByValue(older, '1950', '1951')).toBe(0);
    // the same year, one of them without month and day: not orderable
    expect(pickByValue(older, '1950', '12 May 1950')).toBeNull();
    expect(pickByValue(older, null, '1950')).toBeNull();
  });
});
