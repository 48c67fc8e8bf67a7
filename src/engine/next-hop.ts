import type { Encoder } from '../models/encoder.js';
import type { ResolvedAccess } from './access.js';
import { ESTABLISHED_PER_HOP, SUGGESTIONS, type ChainState, type RunHop, type Step } from './chain.js';
import { coherenceOf, stepGeometry, type Coherence } from './coherence.js';
import { MIN_BRIDGE_SCORE, type BridgeCandidate, type Decomposer } from './decompose.js';
import { gateProbability } from './gate.js';
import { worthOffering } from './offer.js';
import type { Candidate, Retriever } from './retrieve.js';
import type { EngineSettings } from './settings.js';
import { titleAsShown } from './suggestion-label.js';
import { evidenceCoverage } from './text.js';
import type { CandidateRef, StopReason, Suggestion } from './types.js';

/** What proposing the next hop needs: the decomposer, the encoder, the windows' vectors and a clock. */
export interface NextHopDeps {
  decomposer: Decomposer;
  encoder: Encoder;
  retriever: Pick<Retriever, 'windowsOf'>;
  now: () => number;
}

export type NextHop = { step: Step } | { stop: StopReason; suggestions: Suggestion[] };

/**
 * The next hop: bridge candidates from this hop's evidence, and the coherence check of the best
 * one's query. Below the check, the chain stops and offers the best candidates as suggestions.
 */
export async function proposeNext(
  deps: NextHopDeps,
  state: ChainState,
  run: RunHop,
  step: Step,
  settings: EngineSettings,
  ctx: ResolvedAccess,
): Promise<NextHop> {
  const { hop } = run;
  const d0 = deps.now();
  const candidates = await bridgeCandidates(deps, state, run, step, ctx);
  hop.timings.decomposeMs = deps.now() - d0;
  if (deps.now() > run.deadline) {
    // finding the bridge used up the hop's time: what it has is the hop's best so far
    hop.incomplete = true;
    return { stop: 'budget', suggestions: [] };
  }
  if (candidates.length === 0 || candidates[0]!.score < MIN_BRIDGE_SCORE) return { stop: 'no_bridge', suggestions: [] };
  // The best candidate is encoded alone: it decides, and the runners-up are encoded only when the
  // chain stops for a person and offers them. Alone also keeps its int8 vector free of batch-mates
  // (dynamic quantisation scales activations per batch).
  const options = candidates.slice(0, SUGGESTIONS);
  const check = await checker(deps, state, run, candidates, settings);
  const bestVector = await deps.encoder.encodeOne(options[0]!.query);
  const bestCheck = check(options[0]!, 0, bestVector);
  hop.nextQuery = options[0]!.query;
  hop.coherence = bestCheck;
  hop.timings.decomposeMs = deps.now() - d0;
  // in shadow mode (measuring the gate) the chain goes on whatever the check says
  if (!bestCheck.passed && !settings.gateShadow) {
    const rest = options.slice(1);
    const restVectors = rest.length ? await deps.encoder.encode(rest.map((c) => c.query)) : [];
    const checks = [bestCheck, ...rest.map((c, i) => check(c, i + 1, restVectors[i]!))];
    hop.timings.decomposeMs = deps.now() - d0;
    return { stop: 'low_coherence', suggestions: suggestionsOf(run, options, checks) };
  }
  const next = hop.candidates[0]!;
  return {
    step: {
      query: next.query,
      formedBy: next.formedBy,
      bridge: next.entity,
      bridgeFrom: { sourceDocId: next.sourceDocId, linkDocId: next.linkDocId },
      // the gate's P that this hop brings needed evidence: a doubtful hop's finds rank after the first hop's best
      weight: hop.weight * (bestCheck.pRight ?? next.confidence),
      vector: bestVector,
      confirmed: false,
    },
  };
}

/** The decomposer's bridge candidates from this hop's evidence, recorded on the hop. */
async function bridgeCandidates(
  deps: NextHopDeps,
  state: ChainState,
  run: RunHop,
  step: Step,
  ctx: ResolvedAccess,
): Promise<BridgeCandidate[]> {
  const { hop, top } = run;
  const candidates = await deps.decomposer.candidates({
    question: state.question,
    questionAnalysis: state.qa,
    evidence: top,
    knownText: state.knownText.join(' \n '),
    knownDocIds: new Set([...run.knownDocsBefore, ...top.slice(0, ESTABLISHED_PER_HOP).map((c) => c.chunk.docId)]),
    usedEntities: state.usedEntities,
    pastQueries: state.hops.map((h) => h.query),
    currentQuery: step.query,
    queryVector: run.queryVector,
    access: ctx,
    deadline: { at: run.deadline, now: deps.now },
  });
  hop.candidates = candidates.map((c): CandidateRef => ({
    entity: c.entity,
    origin: c.origin,
    chunkId: c.chunkId,
    sourceDocId: c.chunkId === null ? null : (top.find((t) => t.chunk.id === c.chunkId)?.chunk.docId ?? null),
    linksTo: c.linksTo,
    linkDocId: c.linkDocId,
    linkVia: c.linkVia,
    ownPageHeld: c.ownPageHeld,
    features: c.features,
    score: c.score,
    confidence: c.confidence,
    query: c.query,
    formedBy: c.formedBy,
  }));
  return candidates;
}

/**
 * The check of a candidate's query: its coherence with this hop's query and the gate's probability
 * that following it is right.
 */
async function checker(
  deps: NextHopDeps,
  state: ChainState,
  run: RunHop,
  candidates: readonly BridgeCandidate[],
  settings: EngineSettings,
): Promise<(c: BridgeCandidate, i: number, vector: Float32Array) => Coherence> {
  const { hop, top } = run;
  const evidenceVector = await bestWindowVector(deps, top[0]!);
  const coverage = evidenceCoverage(state.question, state.knownText.join(' '));
  return (c, i, vector) => {
    const geometry = stepGeometry(run.queryVector, vector, evidenceVector);
    const gate = gateProbability({
      ...geometry,
      candidate: c,
      runnerUpScore: candidates[i + 1]?.score ?? null,
      hop: hop.hop,
      evidenceRerank: top[0]!.rerank,
      coverage,
    });
    return coherenceOf(geometry, settings.coherenceThreshold, gate.p, settings.gateThreshold, gate.features);
  };
}

/** The suggestions a stopped chain offers: those a person can judge by where they go, likeliest first. */
function suggestionsOf(run: RunHop, options: readonly BridgeCandidate[], checks: readonly Coherence[]): Suggestion[] {
  const { hop, top } = run;
  const suggestions = options.map((c, i): Suggestion => ({
    entity: c.entity,
    // the target's title without the site's name it shares with the page the chain is on
    leadsTo:
      c.linksTo && titleAsShown(c.linksTo, (top.find((t) => t.chunk.id === c.chunkId) ?? top[0]!).chunk.doc.title),
    leadsVia: c.linkVia ?? null,
    chunkId: c.chunkId,
    sourceDocId: hop.candidates[i]!.sourceDocId,
    linkDocId: c.linkDocId,
    query: c.query,
    score: c.score,
    confidence: c.confidence,
    coherence: checks[i]!,
  }));
  // only those a person can judge by where they go (see offer.ts); the floor on P comes once the stop asks
  const offered = suggestions.filter((_, i) => worthOffering(options[i]!));
  // the one most likely to bring what is missing first (the gate's P, as for the hop it would start)
  return offered.sort((a, b) => (b.coherence.pRight ?? 0) - (a.coherence.pRight ?? 0));
}

/** The vector of the best evidence window, for the directional coherence check. */
async function bestWindowVector(deps: NextHopDeps, c: Candidate): Promise<Float32Array | null> {
  if (!c.window) return null;
  const ws = (await deps.retriever.windowsOf([c.chunk.id])).get(c.chunk.id) ?? [];
  return ws.find((w) => w.id === c.window!.windowId)?.vector ?? null;
}
