import { describe, expect, it } from 'vitest';
import {
  attributeOf,
  choiceOptions,
  parseComparison,
  parseDate,
  parseNumber,
  pickByValue,
} from '../../../src/engine/answer/comparison.js';

describe('comparison questions', () => {
  it('finds the two options of a choice however the question places them', () => {
    expect(choiceOptions('Who is older, Ada Brook or Carl Dunn?')).toEqual(['Ada Brook', 'Carl Dunn']);
    expect(choiceOptions('Between Shibataea and Pediocactus, which is a genus of bamboo?')).toEqual([
      'Shibataea',
      'Pediocactus',
    ]);
    expect(choiceOptions('Who is older out of John Waite and Jeff Scott Soto?')).toEqual([
      'John Waite',
      'Jeff Scott Soto',
    ]);
    expect(choiceOptions('Which magazine was published first Guitar World or Chic ?')).toEqual([
      'Guitar World',
      'Chic',
    ]);
    expect(choiceOptions('Is the Nipponanthemum or Graptopetalum native to Japan?')).toEqual([
      'Nipponanthemum',
      'Graptopetalum',
    ]);
    expect(choiceOptions('Which man, John Williams or Yevgeny Zamyatin, composed the film score?')).toEqual([
      'John Williams',
      'Yevgeny Zamyatin',
    ]);
    // a capital "The" is part of a name; a lowercase one is the article
    expect(choiceOptions('Which band was formed first The Exies or Circus Diablo ?')).toEqual([
      'The Exies',
      'Circus Diablo',
    ]);
    expect(choiceOptions('Which plant is larger, the Pterocarya or the Cotula?')).toEqual(['Pterocarya', 'Cotula']);
  });

  it('does not read a list in a bridge question as a choice', () => {
    expect(parseComparison('Who leads the project whose drone lost telemetry on 2024-03-14?')).toBeNull();
    expect(parseComparison('What media company produced the film with WingNut Films and New Line Cinema?')).toBeNull();
    expect(parseComparison('In which city is the manufacturer of the sensor based?')).toBeNull();
  });

  it('tells yes/no comparisons from choices', () => {
    expect(parseComparison('Were Scott Derrickson and Ed Wood of the same nationality?')?.kind).toBe('yesno');
    expect(parseComparison('Are both Judy Blume and Sarah Caudwell writers?')?.kind).toBe('yesno');
    expect(parseComparison('Erin Wiedner and Monte Hellman are both American film directors?')?.kind).toBe('yesno');
    expect(parseComparison('Which film came out first, Blind Shaft or The Mask of Fu Manchu?')?.kind).toBe('choice');
  });

  it('reads which attribute a choice compares and which way wins', () => {
    expect(attributeOf('Who is older, Ada Brook or Carl Dunn?')).toMatchObject({
      template: 'When was {} born?',
      value: 'date',
      pick: 'min',
    });
    expect(attributeOf('Who was born later, Carlos Fuentes or Christa Wolf')).toMatchObject({
      template: 'When was {} born?',
      pick: 'max',
    });
    expect(attributeOf("Which magazine was started first, Arthur's Magazine or First for Women?")).toMatchObject({
      template: 'When was {} started?',
      pick: 'min',
    });
    expect(attributeOf('Who died first, Mary Lightner or Linda Hayes?')).toMatchObject({
      template: 'When did {} die?',
      pick: 'min',
    });
    expect(attributeOf('Which opera has more acts, Einstein on the Beach or Owen Wingrave?')).toMatchObject({
      template: 'How many acts does {} have?',
      value: 'number',
      pick: 'max',
    });
    // the attribute of something one hop away is not read off the options' own passages
    expect(attributeOf('Which film has the director who was born later, Stage Kisses or The Lame Devil?')).toBeNull();
    expect(attributeOf('Which is an herb, Trachymene or Elaeagnus?')).toBeNull();
  });

  it('orders dates and counts read off spans', () => {
    expect(parseDate('4 July 1952')).toBe(19520704);
    expect(parseDate('July 4, 1952')).toBe(19520704);
    expect(parseDate('March 1949')).toBe(19490300);
    expect(parseDate('c. 1450')).toBe(14500000);
    expect(parseDate('no date here')).toBeNull();
    expect(parseNumber('about 1,200 species')).toBe(1200);
    expect(parseNumber('three acts')).toBe(3);
    const older = { template: 'When was {} born?', value: 'date' as const, pick: 'min' as const };
    expect(pickByValue(older, '12 May 1950', '3 March 1948')).toBe(1);
    expect(pickByValue(older, '1950', '1951')).toBe(0);
    // the same year, one of them without month and day: not orderable
    expect(pickByValue(older, '1950', '12 May 1950')).toBeNull();
    expect(pickByValue(older, null, '1950')).toBeNull();
  });
});
