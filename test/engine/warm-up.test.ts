import { describe, expect, it } from 'vitest';
import type { EngineResult } from '../../src/engine/types.js';
import { warmUp, WARM_UP_QUESTION } from '../../src/engine/warm-up.js';
import type { EngineApi } from '../../src/engine/api.js';

/** An engine that records each question and answers once `release` is called: questions in flight are visible. */
function recordingEngine() {
  const asked: { question: string; overrides: unknown; access: unknown }[] = [];
  let inFlight = 0;
  let mostInFlight = 0;
  const waiting: (() => void)[] = [];
  const engine = {
    async run(question: string, access: unknown, overrides: unknown) {
      asked.push({ question, access, overrides });
      mostInFlight = Math.max(mostInFlight, ++inFlight);
      await new Promise<void>((resolve) => waiting.push(resolve));
      inFlight -= 1;
      return {} as EngineResult;
    },
  } as unknown as EngineApi;
  return { engine, asked, waiting, mostInFlight: () => mostInFlight };
}

describe('warming the engine before the first person asks', () => {
  it('asks one question per engine, all in flight together, with no time budget to cut the reader', async () => {
    const e = recordingEngine();
    // a clock that reads 1000 ms when the warm-up starts and 1750 ms when it ends
    const clock = [1000, 1750];
    const done = warmUp(e.engine, 3, () => clock.shift()!);
    await expect.poll(() => e.waiting.length).toBe(3);
    expect(e.mostInFlight()).toBe(3);
    for (const release of e.waiting) release();
    expect(await done).toBe(750);
    expect(e.asked.map((a) => a.question)).toEqual([WARM_UP_QUESTION, WARM_UP_QUESTION, WARM_UP_QUESTION]);
    for (const a of e.asked) {
      expect(a.access).toEqual({ kind: 'local' });
      expect((a.overrides as { totalBudgetMs: number }).totalBudgetMs).toBeGreaterThan(10_000);
    }
  });
});
