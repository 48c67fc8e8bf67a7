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

/**
 * Questions a colleague could ask of the sample company that its documents do not answer: the
 * office and the people exist, the asked-for fact is written nowhere. A short answer to any of them
 * is a confident wrong answer, the worst outcome.
 */
const UNANSWERABLE = ['What is the Wi-Fi password of the Gdańsk office?', "Who is the company's external auditor?"];

describe('a question the sample corpus does not answer', () => {
  it.each(UNANSWERABLE)('gets no short answer: %s', async (q) => {
    const r = await core.engine.run(q, LOCAL);
    expect(r.answer.value).toBeNull();
    expect(r.answer.confidence.label).toBe('low');
    // declined with room to spare, not on the answer threshold's edge (0.5)
    expect(r.answer.confidence.score).toBeLessThan(0.35);
    // the reply still shows the closest sentences, cited
    expect(r.answer.leads.length).toBeGreaterThan(0);
  });
});
