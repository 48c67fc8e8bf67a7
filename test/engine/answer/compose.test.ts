import { describe, expect, it } from 'vitest';
import { composeAnswer, sentenceAround, withheldAnswer } from '../../../src/engine/answer/compose.js';
import { FEATURE_NAMES } from '../../../src/engine/answer/confidence.js';
import type { EvidencePassage } from '../../../src/engine/answer/passages.js';
import type { LogisticModel } from '../../../src/engine/logistic.js';
import type { Snippet } from '../../../src/engine/types.js';
import type { ReadingFeatures } from '../../../src/engine/answer/features.js';
import type { Reading } from '../../../src/engine/answer/reading.js';

const d = FEATURE_NAMES.length;
/** A model whose probability is σ(bias) whatever the features: the compose logic, not the fit, is under test. */
const constant = (bias: number): LogisticModel => ({
  features: FEATURE_NAMES,
  mean: new Array(d).fill(0),
  std: new Array(d).fill(1),
  weights: new Array(d).fill(0),
  bias,
});

function passage(id: number, title: string, text: string): EvidencePassage {
  const snippet: Snippet = {
    chunkId: id,
    docId: id,
    windowId: null,
    text: text.slice(0, 60),
    score: 0.8,
    citation: { document: title, source: `/docs/${id}.md`, heading_path: [], page: null, url: null },
  };
  return { snippet, text, title, hop: 1, weight: 1, confirmed: true, rank: id - 1 };
}

const lake = passage(
  1,
  'Lake Varen',
  'Lake Varen is a glacial lake in the Tatra foothills. Its deepest point, 64 metres, was measured in 1931 by Emil Dobrowski. It freezes every winter.',
);
const notes = passage(
  2,
  'Field notes',
  'Our own survey of Lake Varen in 2019 found the deepest point at 61 metres, measured by Hana Lis.',
);

const features = (over: Partial<ReadingFeatures> = {}): ReadingFeatures => ({
  kind: 'span',
  pAnswer: 0.9,
  pKind: 0.95,
  spanScore: 12,
  margin: 4,
  agreement: 0,
  conflict: false,
  retrieval: 0.8,
  rank: 0,
  hop: 1,
  weight: 1,
  confirmed: true,
  comparison: 'none',
  stopped: false,
  words: 1,
  expected: 'any',
  typeFit: 0,
  coverage: 1,
  corroborated: false,
  ...over,
});

function spanReading(p: EvidencePassage, value: string, over: Partial<Reading> = {}): Reading {
  const start = p.text.indexOf(value);
  return {
    kind: 'span',
    value,
    passage: p,
    start,
    end: start + value.length,
    rivals: [],
    comparison: null,
    features: features(),
    ms: 12,
    ...over,
  };
}

describe('composing the answer from a reading', () => {
  it('gives the span exactly, the sentence it stands in, and its citation, when confident', () => {
    const a = composeAnswer([], [lake.snippet], [lake], spanReading(lake, 'Emil Dobrowski'), 'answered', constant(3));
    expect(a.status).toBe('answered');
    expect(a.value).toBe('Emil Dobrowski');
    expect(a.kind).toBe('span');
    expect(a.span).toEqual({
      chunkId: 1,
      start: lake.text.indexOf('Emil Dobrowski'),
      end: lake.text.indexOf('Emil Dobrowski') + 'Emil Dobrowski'.length,
    });
    expect(lake.text.slice(a.span!.start, a.span!.end)).toBe(a.value);
    expect(a.sentence).toBe('Its deepest point, 64 metres, was measured in 1931 by Emil Dobrowski.');
    expect(a.source!.citation.document).toBe('Lake Varen');
    expect(a.confidence.label).toBe('high');
    expect(a.confidence.score).toBeCloseTo(1 / (1 + Math.exp(-3)), 9);
  });

  it('declines below the threshold: no short answer, the closest sentences cited instead', () => {
    const a = composeAnswer(
      [],
      [lake.snippet, notes.snippet],
      [lake, notes],
      spanReading(lake, 'Emil Dobrowski'),
      'answered',
      constant(-2),
    );
    expect(a.status).toBe('insufficient');
    expect(a.value).toBeNull();
    expect(a.sentence).toBeNull();
    expect(a.confidence.label).toBe('low');
    expect(a.confidence.reasons.join(' ')).toMatch(/too low for a short answer/);
    // the sentence the reader pointed at comes first, then the rest of the evidence, each cited
    expect(a.leads[0]!.text).toBe('Its deepest point, 64 metres, was measured in 1931 by Emil Dobrowski.');
    expect(a.leads.map((l) => l.citation.document)).toEqual(['Lake Varen', 'Field notes']);
    // what was proposed stays visible to the trace and to eval
    expect(a.reading?.value).toBe('Emil Dobrowski');
  });

  it('offers the sentence of the next best span second when it declines, before the rest of the evidence', () => {
    const depth = lake.text.indexOf('64 metres');
    const reading = spanReading(lake, 'Emil Dobrowski', {
      nextBest: [
        { passage: lake, start: depth + 1, end: depth + 3 },
        { passage: lake, start: depth, end: depth + 9 },
      ],
    });
    const a = composeAnswer([], [lake.snippet, notes.snippet], [lake, notes], reading, 'answered', constant(-2));
    // both next best spans stand in the reader's own sentence: it is quoted once, the notes follow
    expect(a.leads.map((l) => l.text)).toEqual([
      'Its deepest point, 64 metres, was measured in 1931 by Emil Dobrowski.',
      notes.snippet.text,
    ]);
    const freezes = lake.text.indexOf('freezes');
    const other = spanReading(lake, 'Emil Dobrowski', {
      nextBest: [{ passage: lake, start: freezes, end: freezes + 7 }],
    });
    const b = composeAnswer([], [lake.snippet, notes.snippet], [lake, notes], other, 'answered', constant(-2));
    expect(b.leads.map((l) => l.text)).toEqual([
      'Its deepest point, 64 metres, was measured in 1931 by Emil Dobrowski.',
      'It freezes every winter.',
      notes.snippet.text,
    ]);
  });

  it('labels medium between 0.5 and 0.8', () => {
    expect(
      composeAnswer([], [lake.snippet], [lake], spanReading(lake, 'Emil Dobrowski'), 'answered', constant(0.5))
        .confidence.label,
    ).toBe('medium');
  });

  it('shows a source that reads differently side by side with the answer', () => {
    const start = notes.text.indexOf('61 metres');
    const reading = spanReading(lake, '64 metres', {
      rivals: [{ value: '61 metres', passage: notes, start, end: start + 9, score: 11 }],
    });
    const a = composeAnswer([], [lake.snippet, notes.snippet], [lake, notes], reading, 'answered', constant(1.5));
    expect(a.status).toBe('conflicting');
    expect(a.conflicts[0]!.values.map((v) => v.value)).toEqual(['64 metres', '61 metres']);
    expect(a.conflicts[0]!.values[1]!.snippet.citation.document).toBe('Field notes');
    expect(a.conflicts[0]!.values[1]!.snippet.text).toContain('61 metres');
  });

  it('answers yes or no with the passages the comparison read', () => {
    const reading: Reading = {
      kind: 'no',
      value: 'no',
      passage: lake,
      start: -1,
      end: -1,
      rivals: [],
      features: features({ kind: 'no', comparison: 'yesno' }),
      ms: 9,
      comparison: {
        attribute: null,
        options: [
          { entity: 'Lake Varen', value: null, passage: lake, start: -1, end: -1 },
          { entity: 'Field notes', value: null, passage: notes, start: -1, end: -1 },
        ],
      },
    };
    const a = composeAnswer([], [lake.snippet, notes.snippet], [lake, notes], reading, 'answered', constant(2));
    expect(a.value).toBe('no');
    expect(a.kind).toBe('no');
    expect(a.span).toBeNull();
    expect(a.sentence).toBe('Lake Varen is a glacial lake in the Tatra foothills.');
    expect(a.comparison!.options.map((o) => o.snippet!.citation.document)).toEqual(['Lake Varen', 'Field notes']);
  });

  it('withholds the answer of a result whose evidence the asker may not all see', () => {
    const a = withheldAnswer([], [notes.snippet]);
    expect(a.value).toBeNull();
    expect(a.leads).toEqual([notes.snippet]);
    expect(a.reading).toBeNull();
  });

  it('finds the sentence around a span, and a table row as one statement', () => {
    expect(sentenceAround(lake.text, lake.text.indexOf('freezes'), lake.text.indexOf('freezes') + 7).text).toBe(
      'It freezes every winter.',
    );
    const row = 'Temperature: −20 °C; Offset: +0.35 °C';
    expect(sentenceAround(row, row.indexOf('+0.35'), row.length).text).toBe(row);
  });
});
