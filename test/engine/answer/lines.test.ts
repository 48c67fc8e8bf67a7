import { describe, expect, it } from 'vitest';
import { candidateLines, LINE_FEATURES, rankLines, shownLine } from '../../../src/engine/answer/lines.js';
import type { EvidencePassage } from '../../../src/engine/answer/passages.js';
import type { LogisticModel } from '../../../src/engine/logistic.js';
import type { Snippet } from '../../../src/engine/types.js';

function passage(chunkId: number, text: string, rank: number, entry?: Snippet['citation']['entry']): EvidencePassage {
  const snippet: Snippet = {
    chunkId,
    docId: chunkId,
    windowId: null,
    text,
    score: 0.5,
    citation: {
      document: 'Settings',
      source: '/s.html',
      heading_path: [],
      page: null,
      url: null,
      ...(entry ? { entry } : {}),
    },
  };
  return { snippet, text, title: 'Settings', hop: 1, weight: 1, confirmed: true, rank };
}

/** A model that ranks by one feature alone (standardised as given). */
function onlyBy(feature: (typeof LINE_FEATURES)[number]): LogisticModel {
  const d = LINE_FEATURES.length;
  return {
    features: [...LINE_FEATURES],
    mean: new Array(d).fill(0),
    std: new Array(d).fill(1),
    weights: LINE_FEATURES.map((f) => (f === feature ? 1 : 0)),
    bias: 0,
  };
}

describe('the lines a person may read first', () => {
  const passages = [
    passage(1, 'The queue is drained nightly. The default depth is 40 jobs.', 0, { term: 'queue_depth', kind: 'term' }),
    passage(2, 'Workers restart after a crash.', 1),
  ];
  const lines = candidateLines(
    'How many jobs can the queue hold by default?',
    passages,
    [{ passage: 0, start: 45, end: 47, score: 9 }],
    null,
  );

  it('makes every sentence of the passages a candidate, with its features in order', () => {
    expect(lines.map((l) => l.snippet.text)).toEqual([
      'The queue is drained nightly.',
      'The default depth is 40 jobs.',
      'Workers restart after a crash.',
    ]);
    const f = (i: number, name: (typeof LINE_FEATURES)[number]) => lines[i]!.features[LINE_FEATURES.indexOf(name)];
    expect(f(1, 'span_score')).toBe(9);
    expect(f(1, 'has_span')).toBe(1);
    expect(f(0, 'has_span')).toBe(0);
    expect(f(0, 'first_sentence')).toBe(1);
    expect(f(1, 'first_sentence')).toBe(0);
    expect(f(1, 'entry')).toBe(1);
    expect(f(2, 'entry')).toBe(0);
    // a number is asked for, and only the second line holds one
    expect(f(1, 'typed')).toBe(1);
    expect(f(0, 'untyped')).toBe(1);
  });

  it('ranks them by the fitted model, best first', () => {
    expect(rankLines(lines, onlyBy('span_score'))[0]!.snippet.text).toBe('The default depth is 40 jobs.');
    expect(rankLines(lines, onlyBy('first_sentence'))[0]!.snippet.text).toBe('The queue is drained nightly.');
  });

  it("shows a line with its entry's term only where the line does not name it", () => {
    expect(shownLine(lines[1]!.snippet)).toBe('queue_depth — The default depth is 40 jobs.');
    const named = { ...lines[1]!.snippet, text: 'queue_depth: The default depth is 40 jobs.' };
    expect(shownLine(named)).toBe('queue_depth: The default depth is 40 jobs.');
    expect(shownLine(lines[2]!.snippet)).toBe('Workers restart after a crash.');
    // an option is named by any of its flags, as a manual writes them (jq's "--raw-output / -r:")
    const option = { term: '--raw-output, -r', kind: 'option' as const };
    const flagged = {
      text: '--raw-output / -r: With this option, strings are written as they are.',
      citation: { ...lines[1]!.snippet.citation, entry: option },
    };
    expect(shownLine(flagged)).toBe('--raw-output / -r: With this option, strings are written as they are.');
    const unnamed = { ...flagged, text: 'Strings are written as they are.' };
    expect(shownLine(unnamed)).toBe('--raw-output, -r — Strings are written as they are.');
  });
});
