import { dot } from '../models/encoder.js';

export interface Coherence {
  /** Cosine of the current and the next query vectors. */
  cosine: number;
  /**
   * Whether the step from the current to the next query moves toward the evidence that suggested
   * it: cosine of (next − current) with (evidence − current). Positive: toward the evidence;
   * near zero or negative: sideways, the next query drifted off what was found.
   */
  directional: number;
  passed: boolean;
  threshold: number;
}

function sub(a: Float32Array, b: Float32Array): Float32Array {
  const out = new Float32Array(a.length);
  for (let i = 0; i < a.length; i++) out[i] = a[i]! - b[i]!;
  return out;
}

function cos(a: Float32Array, b: Float32Array): number {
  const na = Math.sqrt(dot(a, a));
  const nb = Math.sqrt(dot(b, b));
  return na === 0 || nb === 0 ? 0 : dot(a, b) / (na * nb);
}

/**
 * The coherence check between hops: the next query must stay close to the current one (cosine at
 * or above the threshold) and move toward the evidence rather than sideways (directional > 0).
 */
export function coherenceOf(current: Float32Array, next: Float32Array, evidence: Float32Array | null, threshold: number): Coherence {
  const cosine = dot(current, next);
  const directional = evidence ? cos(sub(next, current), sub(evidence, current)) : 1;
  return { cosine, directional, passed: cosine >= threshold && directional > 0, threshold };
}
