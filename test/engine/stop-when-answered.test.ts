import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Core } from '../../src/core.js';
import type { AnswerReader } from '../../src/engine/answer/reading.js';
import { LOCAL } from '../../src/store/access.js';
import { engineOf, sampleCore } from '../helpers.js';

let core: Core;
let cleanup: () => Promise<void>;
beforeAll(async () => {
  ({ core, cleanup } = await sampleCore());
});
afterAll(() => cleanup());

const ONE_HOP = 'What calibration offset does the Vantor TS-40 need at −20 °C?';

describe('a chain stops hopping once its evidence holds a short answer', () => {
  it('a one-hop question takes one hop', async () => {
    const r = await core.engine.run(ONE_HOP, LOCAL);
    expect(r.hops.length).toBe(1);
    // what the reader reads there (given as the short answer or not: its confidence sits under 0.5)
    expect(r.answer.reading?.value).toBe('+0.35 °C');
  });

  it('with RAGASK_ANSWER_EARLY on, ends at the first hop on a high reading, before looking for a next hop', async () => {
    // the shipped reader with twenty logits more for the datasheet's value: a reading no sample question
    // gets from the real one, so that the stop is tested on its mechanics, not on a calibrated edge
    const sure: AnswerReader = {
      read: async (question, passages, opts) => {
        const r = await core.reader.read(question, passages, opts);
        const surer = (s: { text: string; score: number }) => (s.text === '+0.35 °C' ? s.score + 20 : s.score);
        return {
          ...r,
          windows: r.windows.map((w) => ({ ...w, spans: w.spans.map((s) => ({ ...s, score: surer(s) })) })),
        };
      },
    };
    const engine = engineOf(core, { reader: sure });
    const early = await engine.run(ONE_HOP, LOCAL, { answerEarly: true });
    expect(early.hops.length).toBe(1);
    expect(early.stopReason).toBe('answered');
    expect(early.answer.value).toBe('+0.35 °C');
    // well above the 0.8 a first hop's reading needs, not on its edge
    expect(early.answer.confidence.score).toBeGreaterThan(0.88);
    // without it the chain looks for a bridge after the first hop, and stops for want of one
    const hopping = await engine.run(ONE_HOP, LOCAL, { answerEarly: false });
    expect(hopping.stopReason).toBe('no_bridge');
  });

  it('hops on from a first reading that is not high', async () => {
    // the first hop reads the incident report, whose best reading ("radio team") is far below high;
    // the project lead is on the project's page, a hop on
    const q = 'Who leads the project whose drone lost telemetry on 2024-03-14?';
    const r = await core.engine.run(q, LOCAL, { answerEarly: true });
    expect(r.hops.length).toBeGreaterThanOrEqual(2);
    // what the reader reads there; whether it is given as the short answer rests on a calibrated P near the
    // threshold (0.46 on the reader trained on teamqa), which int8 kernels may move
    expect(r.answer.reading?.value).toBe('Mirela Ostrowski');
  });
});
