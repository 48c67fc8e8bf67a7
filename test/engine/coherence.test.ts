import { describe, expect, it } from 'vitest';
import { coherenceOf, stepGeometry } from '../../src/engine/coherence.js';
import { normalize } from '../../src/models/encoder.js';

const v = (...xs: number[]) => normalize(Float32Array.from(xs));

describe('coherence between hops', () => {
  it('is the cosine of the two query vectors, checked against the threshold', () => {
    const c = coherenceOf(stepGeometry(v(1, 0, 0), v(1, 1, 0), null), 0.75, null, null);
    expect(c.cosine).toBeCloseTo(Math.SQRT1_2, 5);
    expect(c.passed).toBe(false);
    expect(coherenceOf(stepGeometry(v(1, 0, 0), v(1, 0.2, 0), null), 0.75, null, null).passed).toBe(true);
  });

  it('measures whether a step moves toward the evidence, and how far it drifts from it', () => {
    const current = v(1, 0, 0);
    const evidence = v(0.6, 0.8, 0);
    const toward = stepGeometry(current, v(1, 0.3, 0), evidence);
    const away = stepGeometry(current, v(1, -0.3, 0), evidence);
    expect(toward.directional).toBeGreaterThan(0.5);
    expect(away.cosine).toBeCloseTo(toward.cosine, 6);
    expect(away.directional).toBeLessThan(-0.5);
    // drift: cos(query, evidence) − cos(query, next query)
    expect(toward.drift).toBeCloseTo(0.6 - toward.cosine, 5);
  });

  it('stops on the gate as well as on the cosine: both must pass', () => {
    const g = stepGeometry(v(1, 0, 0), v(1, 0.2, 0), null);
    expect(coherenceOf(g, 0.75, 0.9, 0.5).passed).toBe(true);
    expect(coherenceOf(g, 0.75, 0.2, 0.5).passed).toBe(false);
    expect(coherenceOf(g, 0.99, 0.9, 0.5).passed).toBe(false);
  });
});
