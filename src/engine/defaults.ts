/**
 * The engine's defaults, in one place: the settings' defaults (src/config.ts), the engine's own
 * (hops.ts DEFAULT_SETTINGS) and the core's (core.ts) read them from here. Only a type import, so
 * the config can read them without loading the engine.
 */
import type { EngineSettings } from './settings.js';

/** Settings whose values are fitted or measured elsewhere (gate.ts, offer.ts), not defaults chosen here. */
type MeasuredSettings = 'gateThreshold' | 'usefulThreshold' | 'suggestionFloor';

export const ENGINE_DEFAULTS: Readonly<Omit<EngineSettings, MeasuredSettings>> = {
  maxHops: 3,
  /**
   * The cosine between consecutive hop queries below which a hop stops whatever the gate says: off.
   * A next query puts the entity where the question's slot was, which can move a right hop's query
   * far; the gate weighs the cosine among its features instead. On hotpotqa-train-100 (slot-replacing
   * queries, the first form tried) a floor of 0.75 cut all-support@5 from 0.88 to 0.75, and 0.5 to
   * 0.80 (docs/benchmarks-history.md, "Hops worth a click").
   */
  coherenceThreshold: 0,
  rerankTopK: 5,
  hopBudgetMs: 300,
  totalBudgetMs: 1200,
  /** Candidates each retriever returns before fusion and reranking. */
  retrieveK: 20,
  /** Share of the question's content terms the evidence must hold for the chain to stop as answered. */
  answeredCoverage: 0.9,
  /** Passages of the final evidence the reader reads. */
  readerPassages: 6,
  stopForPerson: 'when-useful',
};
