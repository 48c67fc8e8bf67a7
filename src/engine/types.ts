import type { Coherence } from './coherence.js';

/** Where a cited snippet comes from. */
export interface Citation {
  document: string;
  source: string;
  heading_path: string[];
  page: number | null;
  url: string | null;
}

export interface Snippet {
  chunkId: number;
  docId: number;
  windowId: number | null;
  /** The best window of the chunk, widened to sentence boundaries. */
  text: string;
  score: number;
  citation: Citation;
}

export interface RetrievedRef {
  chunkId: number;
  docId: number;
  score: number;
  rerank: number;
  dense: number | null;
  bm25: number | null;
}

/** A bridge candidate as a hop records it. */
export interface CandidateRef {
  entity: string;
  origin: 'evidence' | 'question';
  /** The chunk it was found in, and its document (null for names the question gives). */
  chunkId: number | null;
  sourceDocId: number | null;
  /** Title and id of the document the entity links to, if any. */
  linksTo: string | null;
  linkDocId: number | null;
  features: { link: number; lookahead: number; idf: number; relevance: number; question: number; mlm: number | null };
  score: number;
  /** Estimated probability that this bridge leads to needed evidence (see bridgeConfidence). */
  confidence: number;
  /** The next hop's query with this entity, and how it was formed. */
  query: string;
  formedBy: 'slot-fill' | 'appended';
}

export type QueryOrigin = 'question' | 'slot-fill' | 'appended' | 'suggestion' | 'follow-up';

/** One hop, fully auditable: what was asked, found, scored, and what comes next and why. */
export interface HopState {
  hop: number;
  query: string;
  formedBy: QueryOrigin;
  /** The bridge entity this hop's query was built around. */
  bridge: string | null;
  /** Where that bridge came from and led to (null for the first hop and typed queries). */
  bridgeFrom?: { sourceDocId: number | null; linkDocId: number | null } | null;
  /**
   * How much this hop's evidence counts in the final ranking: the product of the bridge
   * confidences along the chain (1 for the first hop and for a hop a person chose).
   */
  weight: number;
  retrieved: RetrievedRef[];
  snippets: Snippet[];
  /** Bridge candidates for the next hop, best first. */
  candidates: CandidateRef[];
  nextQuery: string | null;
  coherence: Coherence | null;
  timings: { encodeMs: number; denseMs: number; bm25Ms: number; rerankMs: number; retrieveMs: number; decomposeMs: number; totalMs: number; cached: boolean };
  /** Cut short by the time budget: what it holds is its best so far. */
  incomplete: boolean;
}

export interface Suggestion {
  entity: string;
  /** The chunk and document it comes from, and the document it leads to: shown only where both may be. */
  chunkId: number | null;
  sourceDocId: number | null;
  linkDocId: number | null;
  query: string;
  score: number;
  confidence: number;
  coherence: Coherence;
}

export type StopReason = 'answered' | 'no_new_evidence' | 'no_bridge' | 'max_hops' | 'budget' | 'low_coherence';

export interface Conflict {
  attribute: string;
  values: { value: string; snippet: Snippet }[];
}

export interface Answer {
  status: 'answered' | 'insufficient' | 'conflicting';
  /** The short answer when one can be read off the evidence (a table cell, a value), else null. */
  value: string | null;
  /** The answer-bearing sentence(s), quoted from the evidence. */
  sentence: string | null;
  /** The snippet the sentence comes from. */
  source: Snippet | null;
  /** The chain that led there: one snippet per hop. */
  chain: Snippet[];
  confidence: { score: number; label: 'high' | 'medium' | 'low'; reasons: string[] };
  conflicts: Conflict[];
  /** Other readings of the evidence, close behind the chosen one, with a different value. */
  alternatives: { value: string; snippet: Snippet }[];
  /** When evidence is missing: the best leads, for a person to follow. */
  leads: Snippet[];
}

export interface EngineResult {
  question: string;
  /** For a follow-up: what the person typed ("and at −40 °C?"); `question` is it made self-contained. */
  asked?: string;
  /** For a follow-up: the earlier question it was asked after. */
  followUpOf?: string;
  hops: HopState[];
  /** Final ranked evidence across hops: exactly what the answer cites, in order. */
  evidence: Snippet[];
  stopReason: StopReason;
  suggestions: Suggestion[];
  answer: Answer;
  timings: { totalMs: number };
  settings: { maxHops: number; coherenceThreshold: number; rerankTopK: number; hopBudgetMs: number; totalBudgetMs: number };
}
