import type { Encoder } from '../../models/encoder.js';
import { sentencesOf } from '../../models/nlp.js';
import type { SupportJudge } from './check.js';

const dot = (a: Float32Array, b: Float32Array) => {
  let d = 0;
  for (let i = 0; i < a.length; i++) d += a[i]! * b[i]!;
  return d;
};

/**
 * Support judged by ragask's own encoder: the cosine between a written sentence and the closest
 * sentence of what it cites (the vectors are L2-normalised, so the dot product is the cosine).
 */
export function encoderJudge(encoder: Pick<Encoder, 'encode'>): SupportJudge {
  return {
    async similarity(sentence: string, passages: readonly string[]): Promise<number> {
      const candidates = passages.flatMap((p) => sentencesOf(p).map((s) => s.text));
      if (candidates.length === 0) return 0;
      const [v, ...vs] = await encoder.encode([sentence, ...candidates]);
      return Math.max(...vs.map((x) => dot(v!, x)));
    },
  };
}

/**
 * The cosine a written sentence needs with a sentence it cites to count as supported, by encoder
 * (each encoder's cosines have their own scale): the lowest that drops at least 0.95 of planted
 * unsupported sentences while keeping at least 0.90 of supported ones, with a margin, pooled on
 * teamdocs-apache, -sqlite and -handbook. MiniLM-L6 at 0.6: kept 0.932, dropped 0.964 (0.55 drops
 * 0.949). mpnet-base at 0.65: kept 0.918, dropped 0.965 (0.6 drops 0.950, on the edge). Reported on
 * sets they were not chosen on: BENCHMARKS.md, "The answer writer's checker"
 * (`node scripts/measure-writer-checker.mjs`, with RAGASK_MODEL set for another encoder).
 */
export const SUPPORT_THRESHOLDS: Readonly<Record<string, number>> = {
  'all-MiniLM-L6-v2': 0.6,
  'all-mpnet-base-v2': 0.65,
};

/** Why the writer is off for an encoder without a threshold, and what to do about it. */
export function noThreshold(encoder: string): { detail: string; fix: string } {
  return {
    detail: `no support threshold is measured for the encoder ${encoder} (RAGASK_MODEL)`,
    fix: `set RAGASK_MODEL to ${Object.keys(SUPPORT_THRESHOLDS).join(' or ')}, or measure one with scripts/measure-writer-checker.mjs and add it to SUPPORT_THRESHOLDS in src/engine/writer/support.ts`,
  };
}
