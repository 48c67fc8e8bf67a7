import { describe, expect, it } from 'vitest';
import { coherenceOf } from '../../src/engine/coherence.js';
import { normalize } from '../../src/models/encoder.js';

const v = (...xs: number[]) => normalize(Float32Array.from(xs));

describe('coherence between hops', () => {
  it('is the cosine of the two query vectors, checked against the threshold', () => {
    const c = coherenceOf(v(1, 0, 0), v(1, 1, 0), null, 0.75);
    expect(c.cosine).toBeCloseTo(Math.SQRT1_2, 5);
    expect(c.passed).toBe(false);
    expect(coherenceOf(v(1, 0, 0), v(1, 0.2, 0), null, 0.75).passed).toBe(true);
  });

  it('fails a next query that moves away from the evidence, however close it stays', () => {
    const current = v(1, 0, 0);
    const evidence = v(0, 1, 0);
    const toward = coherenceOf(current, v(1, 0.3, 0), evidence, 0.75);
    const away = coherenceOf(current, v(1, -0.3, 0), evidence, 0.75);
    expect(toward.directional).toBeGreaterThan(0);
    expect(toward.passed).toBe(true);
    expect(away.cosine).toBeCloseTo(toward.cosine, 6);
    expect(away.directional).toBeLessThan(0);
    expect(away.passed).toBe(false);
  });
});
