import type { Entry } from '../store/types.js';
import type { WrittenSentence } from './writer/types.js';
import type { Coherence } from './coherence.js';
import type { ReadingFeatures } from './answer/features.js';

/** Where a cited snippet comes from. */
export interface Citation {
  document: string;
  source: string;
  heading_path: string[];
  page: number | null;
  url: string | null;
  /** The entry the cited text belongs to (a term, option, command, field or named row), when it belongs to one. */
  entry?: Entry;
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

/** How an entity leads to a document: the document's title, a section's heading, or a mere mention. */
export type LinkVia = 'title' | 'heading' | 'mention';

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
  /** How it links there: the document is titled by it, a section is headed by it, or its text merely mentions it. */
  linkVia?: LinkVia | null;
  /**
   * The chain already holds the entity's own page, and this link is another page that mentions it:
   * a hop the engine may take (a reverse link), but no suggestion a person can judge by its label.
   */
  ownPageHeld?: boolean;
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
   * How much this hop's evidence counts in the final ranking: the product of the gate's P(right)
   * along the chain (1 for the first hop; a hop a person chose counts as much as the one before).
   */
  weight: number;
  retrieved: RetrievedRef[];
  snippets: Snippet[];
  /** Bridge candidates for the next hop, best first. */
  candidates: CandidateRef[];
  nextQuery: string | null;
  coherence: Coherence | null;
  timings: {
    encodeMs: number;
    denseMs: number;
    bm25Ms: number;
    rerankMs: number;
    retrieveMs: number;
    decomposeMs: number;
    totalMs: number;
    cached: boolean;
  };
  /** Cut short by the time budget: what it holds is its best so far. */
  incomplete: boolean;
}

export interface Suggestion {
  /** The entity as the document writes it. */
  entity: string;
  /** The title of the document it leads to, without the site name it shares with the page the chain is on (absent in results stored by earlier versions). */
  leadsTo?: string | null;
  /** Whether that document is titled or headed by the entity, or merely mentions it (absent in older results). */
  leadsVia?: LinkVia | null;
  /** The chunk and document it comes from, and the document it leads to: shown only where both may be. */
  chunkId: number | null;
  sourceDocId: number | null;
  linkDocId: number | null;
  query: string;
  score: number;
  confidence: number;
  coherence: Coherence;
}

/**
 * Why the chain ended. low_coherence: the next hop looked wrong and the reply asks a person to
 * choose it; hop_unsure: it looked wrong, and asking would not help (an answer stands, or no
 * suggestion is likely to bring more), so the reply answers from the evidence it has.
 */
export type StopReason =
  'answered' | 'no_new_evidence' | 'no_bridge' | 'max_hops' | 'budget' | 'low_coherence' | 'hop_unsure';

export interface Conflict {
  attribute: string;
  values: { value: string; snippet: Snippet }[];
}

export interface Answer {
  /** answered: a short answer; conflicting: sources read differently (shown side by side); insufficient: no definite answer. */
  status: 'answered' | 'insufficient' | 'conflicting';
  /** What the short answer is: a span of a passage, or yes / no; null when there is none. */
  kind: 'span' | 'yes' | 'no' | null;
  /** The short answer, exactly as the evidence says it ("yes"/"no" for those); null below the confidence threshold. */
  value: string | null;
  /** The sentence the answer comes from, quoted from the evidence. */
  sentence: string | null;
  /** The snippet the sentence comes from (its text is that sentence), with its citation. */
  source: Snippet | null;
  /** Where the short answer stands: character offsets into the cited chunk's text. */
  span: { chunkId: number; start: number; end: number } | null;
  /** The chain that led there: one snippet per hop. */
  chain: Snippet[];
  /** score: the calibrated probability that the short answer is right (see engine/answer/confidence.ts). */
  confidence: { score: number; label: 'high' | 'medium' | 'low'; reasons: string[] };
  conflicts: Conflict[];
  /** Other readings close behind, with a different value. */
  alternatives: { value: string; snippet: Snippet }[];
  /** When there is no definite answer: the sentences that come closest, cited. */
  leads: Snippet[];
  /** For a comparison: each compared thing, what was read for it, and from where. */
  comparison: {
    attribute: string | null;
    options: { entity: string; value: string | null; snippet: Snippet | null }[];
  } | null;
  /** What the reader proposed (even when it was not confident enough to be the answer), and the features of its confidence. */
  reading: {
    kind: 'span' | 'yes' | 'no' | 'none';
    value: string | null;
    at: { chunkId: number; start: number; end: number } | null;
    features: ReadingFeatures;
    ms: number;
  } | null;
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
  /** The time budget cut the chain or the reading short: the answer rests on less than it could (absent in results stored by earlier versions). */
  incomplete?: boolean;
  answer: Answer;
  /** readMs: the reader's share (reading the answer off the final evidence). */
  timings: { totalMs: number; readMs?: number };
  /**
   * The optional writer's sentences, each kept or dropped and why, once written (a front end adds
   * it after the reply; the trace shows it). Citations number `evidence`.
   */
  written?: WrittenTrace;
  settings: {
    maxHops: number;
    coherenceThreshold: number;
    rerankTopK: number;
    hopBudgetMs: number;
    totalBudgetMs: number;
  };
}

/** What the writer wrote for a result, as its trace shows it: every sentence, kept or dropped and why. */
export interface WrittenTrace {
  model: string;
  ms: number;
  /** Why the write failed (null when it was written): only nothing_kept carries sentences. */
  failed: string | null;
  sentences: WrittenSentence[];
}
