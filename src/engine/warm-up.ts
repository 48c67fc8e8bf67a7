import { LOCAL } from '../store/access.js';
import type { EngineApi } from './api.js';

/** A question that any corpus holds some evidence for, so that every stage runs, the reader included. */
export const WARM_UP_QUESTION = 'What is the default setting, and where is it described?';

/**
 * No time budget for the warm-up: a cold question cut by the 1.2 s budget would skip the reader,
 * and leave it cold for the first person who asks.
 */
const UNBOUNDED_MS = 60_000;

/**
 * Asks one untimed question per engine before the first person's, and returns how long it took.
 * The first question after start-up reads the models' weights, the vector index and the store's
 * pages from disk; on a cold disk that alone can take the whole time budget, and the first asker
 * would get a reply cut short. `parallel` is the number of engines behind `engine` (a pool's
 * workers): questions in flight together go to different workers. `now`: the clock (tests set one).
 */
export async function warmUp(
  engine: EngineApi,
  parallel = 1,
  now: () => number = performance.now.bind(performance),
): Promise<number> {
  const t0 = now();
  const budget = { hopBudgetMs: UNBOUNDED_MS, totalBudgetMs: UNBOUNDED_MS };
  await Promise.all(Array.from({ length: Math.max(1, parallel) }, () => engine.run(WARM_UP_QUESTION, LOCAL, budget)));
  return now() - t0;
}
