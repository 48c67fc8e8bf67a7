import { predict, type LogisticModel } from './logistic.js';
import { GATE } from './gate.fitted.js';
import type { CandidateRef } from './types.js';

/**
 * The hop gate: before the engine follows a bridge on its own, the probability that the next hop
 * is right — that it retrieves a supporting passage still missing — from a logistic regression over
 * what the engine knows at that point. Below GATE.threshold the chain stops and a person chooses
 * (the suggestion buttons). Fitted by `ragask calibrate --gate` on QA datasets, where a "wrong
 * bridge" is a next hop that brings none of the still-missing supporting passages into its top
 * snippets; the threshold is chosen from that measurement (see docs/benchmarks-history.md, "Hop gate").
 */

export interface GateInput {
  /** Cosine of the current and next query vectors (the design's coherence). */
  cosine: number;
  /** Whether the step moves toward the evidence that suggested it (see coherence.ts). */
  directional: number;
  /** The design's drift measure: cos(query, best evidence) − cos(query, next query). */
  drift: number;
  candidate: Pick<CandidateRef, 'score' | 'confidence' | 'origin' | 'features'>;
  /** The runner-up's score: a clear favourite is more likely right than a coin toss between two. */
  runnerUpScore: number | null;
  hop: number;
  /** Rerank score of this hop's best chunk. */
  evidenceRerank: number;
  /** Share of the question's content words the evidence so far already holds. */
  coverage: number;
}

export const GATE_FEATURES = [
  'cosine',
  'directional',
  'drift',
  'bridge_confidence',
  'bridge_score',
  'score_margin',
  'link',
  'lookahead',
  'idf',
  'relevance',
  'from_question',
  'later_hop',
  'evidence_rerank',
  'coverage',
] as const;

function gateVector(g: GateInput): number[] {
  const f = g.candidate.features;
  return [
    g.cosine,
    g.directional,
    g.drift,
    g.candidate.confidence,
    g.candidate.score / 4,
    Math.min(2, g.runnerUpScore === null ? 2 : g.candidate.score - g.runnerUpScore) / 2,
    f.link,
    f.lookahead,
    f.idf,
    f.relevance,
    g.candidate.origin === 'question' ? 1 : 0,
    g.hop > 1 ? 1 : 0,
    g.evidenceRerank,
    g.coverage,
  ];
}

/** P(the next hop is right), with the feature vector it was read from. */
export function gateProbability(g: GateInput, model: LogisticModel = GATE.model): { p: number; features: number[] } {
  const features = gateVector(g);
  return { p: predict(model, features, GATE_FEATURES, GATE.fitted.command), features };
}

/** Below this P(next hop right), the chain stops for a person (fitted with the model). */
export const GATE_THRESHOLD = GATE.threshold;

/**
 * A stop asks a person only when a suggestion is at least this likely to bring a missing
 * supporting passage (the same P, for the hop the suggestion would start). Chosen on the tuning
 * sets from every stop's suggestions, each followed and labelled by `ragask eval` (docs/benchmarks-history.md,
 * "Hops worth a click"); below it a click would most likely fetch nothing the answer needs.
 */
export const USEFUL_THRESHOLD = 0.5;
