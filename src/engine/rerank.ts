import { dot } from '../models/encoder.js';

/**
 * Scores windows against a query. The default is the cosine of the BERT vectors; a learned head
 * over the frozen encoder (see reranker-head.ts) can replace it where the benchmark shows it helps.
 */
export interface WindowScorer {
  readonly name: string;
  score(query: Float32Array, windows: readonly Float32Array[]): number[];
}

export const cosineScorer: WindowScorer = {
  name: 'cosine',
  score(query, windows) {
    return windows.map((w) => dot(query, w));
  },
};

export interface WindowScore {
  windowId: number;
  charStart: number;
  charEnd: number;
  score: number;
}

/** A chunk scores as its best window: the answer usually sits in one sentence. */
export function bestWindow(scores: readonly WindowScore[]): WindowScore | null {
  let best: WindowScore | null = null;
  for (const s of scores) if (!best || s.score > best.score) best = s;
  return best;
}
