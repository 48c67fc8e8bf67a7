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
  /** The design's drift: cos(current query, evidence) − cos(current query, next query). */
  drift: number;
  /** The hop gate's probability that the next hop is right (see gate.ts); null where no gate ran. */
  pRight: number | null;
  gateThreshold: number | null;
  /** What the gate read (gate.ts GATE_FEATURES order), kept so the gate can be refitted from traces. */
  gateFeatures?: number[];
  /** cosine ≥ threshold and P(right) ≥ the gate's threshold: the engine follows the bridge on its own. */
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

/** The geometry of a step from the current to the next query, before the gate decides on it. */
export function stepGeometry(
  current: Float32Array,
  next: Float32Array,
  evidence: Float32Array | null,
): Pick<Coherence, 'cosine' | 'directional' | 'drift'> {
  const cosine = dot(current, next);
  const directional = evidence ? cos(sub(next, current), sub(evidence, current)) : 1;
  const drift = evidence ? dot(current, evidence) - cosine : 0;
  return { cosine, directional, drift };
}

/**
 * The coherence check between hops: the next query must stay close to the current one (cosine at
 * or above the threshold) and the gate must think the next hop likely right.
 */
export function coherenceOf(
  geometry: Pick<Coherence, 'cosine' | 'directional' | 'drift'>,
  threshold: number,
  pRight: number | null,
  gateThreshold: number | null,
  gateFeatures?: number[],
): Coherence {
  const gateOk = pRight === null || gateThreshold === null || pRight >= gateThreshold;
  return {
    ...geometry,
    pRight,
    gateThreshold,
    ...(gateFeatures ? { gateFeatures } : {}),
    passed: geometry.cosine >= threshold && gateOk,
    threshold,
  };
}
