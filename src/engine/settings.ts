/** The engine's settings, in a module that imports nothing back (defaults.ts and hops.ts both read it). */

export interface EngineSettings {
  maxHops: number;
  coherenceThreshold: number;
  rerankTopK: number;
  hopBudgetMs: number;
  totalBudgetMs: number;
  /** Chunks each hop retrieves for the ranked evidence list (the top rerankTopK are its snippets). */
  retrieveK: number;
  /** Evidence coverage of the question at which the chain stops as answered. */
  answeredCoverage: number;
  /** Passages of the final evidence the reader reads for the answer. */
  readerPassages: number;
  /** Below this P(next hop right) the chain stops for a person (the fitted gate's threshold). */
  gateThreshold: number;
  /** Measure the gate without obeying it: record each check, never stop at one (ragask eval only). */
  gateShadow?: boolean;
  /**
   * When a chain that stops at the gate asks a person: 'when-useful' only when no short answer
   * stands and a suggestion is likely to bring missing evidence (P ≥ usefulThreshold); otherwise it
   * answers from what it has. 'always' offers the suggestions at every stop (a threshold a person
   * set; ragask eval, to label every stop's suggestions).
   */
  stopForPerson: 'when-useful' | 'always';
  /** The P(brings missing evidence) a suggestion needs for a stop to offer it (see gate.ts). */
  usefulThreshold: number;
  /** A stop that asks on its own lists no suggestion below this P (see offer.ts). */
  suggestionFloor: number;
}
