/**
 * The engine's defaults, in one place: the settings' defaults (src/config.ts), the engine's own
 * (hops.ts DEFAULT_SETTINGS) and the core's (core.ts) read them from here. No imports, so the
 * config can read them without loading the engine.
 */
export const ENGINE_DEFAULTS: Readonly<{
  maxHops: number;
  coherenceThreshold: number;
  rerankTopK: number;
  hopBudgetMs: number;
  totalBudgetMs: number;
  retrieveK: number;
  answeredCoverage: number;
  readerPassages: number;
  stopForPerson: 'when-useful' | 'always';
}> = {
  maxHops: 3,
  /** 0: the hop gate alone decides (measured: a 0.75 cosine floor cut hotpotqa all-support@5 to 0.75). */
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
