import { analyze, type Analysis } from '../models/nlp.js';
import type { Candidate } from './retrieve.js';
import type { HopState, QueryOrigin, Snippet, EngineResult, StopReason } from './types.js';
import { foldName, evidenceCoverage } from './text.js';
import type { EngineSettings } from './settings.js';

export interface Step {
  query: string;
  formedBy: QueryOrigin;
  bridge: string | null;
  bridgeFrom: { sourceDocId: number | null; linkDocId: number | null } | null;
  /** Weight of the hop this step starts (see HopState.weight). */
  weight: number;
  vector: Float32Array | null;
  /** Skip the coherence check for this step (a person chose it). */
  confirmed: boolean;
}

/** Everything a run carries from hop to hop; rebuilt from a stored result to resume it. */
export interface ChainState {
  question: string;
  qa: Analysis;
  hops: HopState[];
  /** Every retrieved chunk's snippet, by chunk id. */
  snippets: Map<number, Snippet>;
  exclude: Set<number>;
  knownDocs: Set<number>;
  knownText: string[];
  usedEntities: Set<string>;
  /** The first hop's query vector: how near each line of the evidence stands to what was asked (answer/lines.ts). */
  questionVector?: Float32Array;
}

/** The best chunks of a hop that count as established: never retrieved again, their documents known. */
export const ESTABLISHED_PER_HOP = 3;

/** Next-hop candidates checked for coherence, and offered as suggestions when the chain stops. */
export const SUGGESTIONS = 3;

/** A hop as it runs: its record, its best candidates, and what the stop and next-hop decisions need. */
export interface RunHop {
  hop: HopState;
  top: Candidate[];
  queryVector: Float32Array;
  /** Documents known before this hop established its own. */
  knownDocsBefore: Set<number>;
  nothingNew: boolean;
  started: number;
  /** When this hop must stop on the engine's clock: its own budget, or the chain's less the reader's reserve. */
  deadline: number;
}

/** Longest question the engine reads; the rest is cut (and the result says so). */
export const MAX_QUESTION_CHARS = 2000;

/** A question as the engine reads it: control characters out, whitespace collapsed, bounded. */
export function boundQuestion(q: string): string {
  const clean = q
    // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what this strips
    .replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200b-\u200f\u2028-\u202e\u2066-\u2069\ufeff]/g, ' ')
    // the model's own control tokens are words when a person types them
    .replace(/\[(MASK|CLS|SEP|PAD|UNK)\]/gi, (_, t: string) => t.toLowerCase())
    .replace(/\s+/g, ' ')
    .trim();
  return [...clean].slice(0, MAX_QUESTION_CHARS).join('');
}

/** The state of a chain that has not made a hop yet. */
export function freshChain(question: string): ChainState {
  return {
    question,
    qa: analyze(question),
    hops: [],
    snippets: new Map(),
    exclude: new Set(),
    knownDocs: new Set(),
    knownText: [],
    usedEntities: new Set(),
  };
}

/**
 * The final ranked evidence: every hop's ranked list, merged by priority weight/rank, where a hop's
 * weight is the product of the gate's P(right) along the chain of bridges that led to it. A sure bridge interleaves its
 * finds with the first hop's (round-robin); a doubtful one ranks them after the first hop's best.
 * Each chunk appears once, at its best position. This is what the answer cites, in order.
 */
export function mergeEvidence(state: { hops: HopState[]; snippets: Map<number, Snippet> }): Snippet[] {
  const items: { priority: number; hop: number; rank: number; chunkId: number }[] = [];
  for (const [hi, h] of state.hops.entries())
    for (const [i, r] of h.retrieved.entries())
      items.push({ priority: h.weight / (i + 1), hop: hi, rank: i, chunkId: r.chunkId });
  items.sort((a, b) => b.priority - a.priority || a.hop - b.hop || a.rank - b.rank);
  const out: Snippet[] = [];
  const seen = new Set<number>();
  for (const it of items) {
    if (seen.has(it.chunkId)) continue;
    const s = state.snippets.get(it.chunkId);
    if (!s) continue;
    seen.add(it.chunkId);
    out.push(s);
  }
  return out;
}

/**
 * A hop's evidence, diversified: each further chunk of a document already listed loses a little
 * (0.05 per earlier chunk of it), so one long document does not fill all the snippets of a hop.
 */
export function diversify(candidates: readonly Candidate[]): Candidate[] {
  const perDoc = new Map<number, number>();
  const adjusted = candidates.map((c, i) => {
    const k = perDoc.get(c.chunk.docId) ?? 0;
    perDoc.set(c.chunk.docId, k + 1);
    return { c, key: c.score - 0.05 * k, i };
  });
  adjusted.sort((a, b) => b.key - a.key || a.i - b.i);
  return adjusted.map((a) => a.c);
}

/** The chain state of a stored result, already redacted for the asker who continues it. */
export function restoreChain(visible: EngineResult): ChainState {
  const snippets = new Map<number, Snippet>(visible.evidence.map((s) => [s.chunkId, s]));
  const state: ChainState = {
    question: visible.question,
    qa: analyze(visible.question),
    // copies: the chain grows and marks its own hops, never the stored result it resumes
    hops: visible.hops.map((h) => ({ ...h })),
    snippets,
    exclude: new Set(),
    knownDocs: new Set(),
    knownText: [],
    usedEntities: new Set(),
  };
  for (const h of visible.hops) {
    if (h.bridge) state.usedEntities.add(foldName(h.bridge));
    for (const s of h.snippets.slice(0, ESTABLISHED_PER_HOP)) {
      state.exclude.add(s.chunkId);
      state.knownDocs.add(s.docId);
    }
    state.knownText.push(...h.snippets.slice(0, ESTABLISHED_PER_HOP).map((s) => `${s.citation.document} ${s.text}`));
  }
  return state;
}

/** The rerank score the best chunk needs, with the question covered, for the chain to stop as answered. */
const ANSWERED_RERANK = 0.55;

/** Why the chain ends after this hop without asking for a next one, or null to go on. */
export function stopReasonFor(
  state: ChainState,
  run: RunHop,
  settings: EngineSettings,
  now: () => number,
): StopReason | null {
  if (run.nothingNew) return 'no_new_evidence';
  if (now() > run.deadline) {
    run.hop.incomplete = true;
    return 'budget';
  }
  if (run.hop.hop >= settings.maxHops) return 'max_hops';
  // Answered: the best chunk alone covers the question (a chain spread over documents has not).
  const best = run.top[0]!;
  if (
    evidenceCoverage(
      state.question,
      `${best.chunk.doc.title} ${best.chunk.headingPath.join(' ')} ${best.chunk.text}`,
    ) >= settings.answeredCoverage &&
    best.rerank >= ANSWERED_RERANK
  )
    return 'answered';
  return null;
}
