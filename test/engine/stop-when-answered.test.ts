import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Core } from '../../src/core.js';
import { LOCAL } from '../../src/store/access.js';
import { sampleCore } from '../helpers.js';

let core: Core;
let cleanup: () => Promise<void>;
beforeAll(async () => {
  ({ core, cleanup } = await sampleCore());
});
afterAll(() => cleanup());

describe('a chain stops hopping once its evidence holds a short answer', () => {
  it('a one-hop question takes one hop', async () => {
    const r = await core.engine.run('What calibration offset does the Vantor TS-40 need at −20 °C?', LOCAL);
    expect(r.hops.length).toBe(1);
    expect(r.answer.value).toBe('+0.35 °C');
  });

  it('stops after the first hop when that hop already holds the answer, and hops on without the rule', async () => {
    const q = 'Which calibration offset applies at −20 °C to the temperature sensor used in Project Falcon?';
    const early = await core.engine.run(q, LOCAL, { answerEarly: true });
    expect(early.hops.length).toBe(1);
    expect(early.stopReason).toBe('answered');
    expect(early.answer.value).toBe('+0.35 °C');
    // the reading stands well above the answer threshold (0.5), not on its edge
    expect(early.answer.confidence.score).toBeGreaterThan(0.75);
    const hopping = await core.engine.run(q, LOCAL, { answerEarly: false });
    expect(hopping.hops.length).toBe(2);
  });
});
