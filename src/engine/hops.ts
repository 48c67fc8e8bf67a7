import { type Logger, silentLogger } from '../log.js';
import type { AccessContext } from '../store/access.js';
import type { AccessResolver, ResolvedAccess } from './access.js';
import type { Encoder } from '../models/encoder.js';
import { analyze, type Analysis } from '../models/nlp.js';
import { answerFromEvidence, type LinesObserver } from './answer/index.js';
import { restateStop } from './answer/compose.js';
import { ENGINE_DEFAULTS } from './defaults.js';
import { HIGH_CONFIDENCE } from './answer/confidence.js';
import { evidenceCoverage, foldName } from './text.js';
import { coherenceOf, stepGeometry } from './coherence.js';
import { gateProbability, GATE_THRESHOLD, USEFUL_THRESHOLD } from './gate.js';
import { likelyEnough, SUGGESTION_FLOOR, worthOffering } from './offer.js';
import { titleAsShown } from './suggestion-label.js';
import { redactResult } from './redact.js';
import { contextualize } from './follow-up.js';
import { MIN_BRIDGE_SCORE, type BridgeCandidate, type Decomposer } from './decompose.js';
import type { QueryCache } from './query-cache.js';
import type { Candidate, Retriever } from './retrieve.js';
import { refFrom, snippetFrom } from './snippet.js';
import type {
  Answer,
  CandidateRef,
  EngineResult,
  HopState,
  QueryOrigin,
  Snippet,
  StopReason,
  Suggestion,
} from './types.js';
import type { EngineSettings } from './settings.js';
import type { AnswerReader } from './answer/reading.js';

const DEFAULT_SETTINGS: EngineSettings = {
  ...ENGINE_DEFAULTS,
  gateThreshold: GATE_THRESHOLD,
  usefulThreshold: USEFUL_THRESHOLD,
  suggestionFloor: SUGGESTION_FLOOR,
};

export interface EngineDeps {
  retriever: Retriever;
  /** Resolves who may see what; every run, resume and follow-up goes through it. */
  access: AccessResolver;
  decomposer: Decomposer;
  encoder: Encoder;
  /** Reads the short answer off the final evidence (models/reader.ts). */
  reader: AnswerReader;
  queryCache?: QueryCache | null;
  log?: Logger;
  /** Clock, replaceable in tests. */
  now?: () => number;
  /** Sees every reading's candidate lines (ragask calibrate --lines). */
  observeLines?: LinesObserver;
}

interface Step {
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
interface ChainState {
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

/**
 * Time the chain leaves the reader within the total budget: the reader's p95 on 2 cores (BENCHMARKS.md,
 * "Reader"); a chain that reaches it stops, marked incomplete.
 */
const READER_RESERVE_MS = 250;

/**
 * The P(right) a first hop's reading needs to end the chain: a *high* answer only. At the answer
 * threshold (0.5) a bridge question's first hop stopped with a confident wrong reading that its later
 * hops would have corrected (teamdocs-apache, BENCHMARKS.md "Stop when answered").
 */
const EARLY_ANSWER = HIGH_CONFIDENCE;

/** The best chunks of a hop that count as established: never retrieved again, their documents known. */
const ESTABLISHED_PER_HOP = 3;
/** Next-hop candidates checked for coherence, and offered as suggestions when the chain stops. */
const SUGGESTIONS = 3;

/** A hop as it runs: its record, its best candidates, and what the stop and next-hop decisions need. */
interface RunHop {
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
function freshChain(question: string): ChainState {
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
 * The multi-hop engine: a state machine of up to maxHops hops. Each hop retrieves (hybrid, never
 * returning earlier evidence), reranks by window, finds the bridge entity and forms the next query,
 * then checks coherence; below the threshold it stops and offers suggested next hops instead of
 * guessing. It stops early when the evidence answers the question, when nothing new appears, or at
 * the time budget (the hop keeps its best-so-far, marked incomplete). Every hop is recorded.
 */
/**
 * What a transport asks of the engine: a question, a chain resumed with a person's choice, a
 * follow-up. HopEngine answers in this thread; EnginePool (src/workers/worker-pool.ts) in worker threads.
 */
export interface EngineApi {
  run(question: string, access: AccessContext, overrides?: Partial<EngineSettings>): Promise<EngineResult>;
  resume(
    previous: EngineResult,
    choice: number | string,
    access: AccessContext,
    overrides?: Partial<EngineSettings>,
  ): Promise<EngineResult>;
  followUp(
    previous: EngineResult,
    question: string,
    access: AccessContext,
    overrides?: Partial<EngineSettings>,
  ): Promise<EngineResult>;
}

export class HopEngine implements EngineApi {
  private readonly log: Logger;
  private readonly now: () => number;

  constructor(
    private readonly deps: EngineDeps,
    readonly settings: EngineSettings = DEFAULT_SETTINGS,
  ) {
    this.log = deps.log ?? silentLogger;
    this.now = deps.now ?? (() => performance.now());
  }

  /** Answers `question` as seen from `access` (who asks, where): retrieval sees only what it allows. */
  async run(question: string, access: AccessContext, overrides: Partial<EngineSettings> = {}): Promise<EngineResult> {
    const ctx = await this.deps.access.resolve(access);
    question = boundQuestion(question);
    return this.continueChain(
      freshChain(question),
      {
        query: question,
        formedBy: 'question',
        bridge: null,
        bridgeFrom: null,
        weight: 1,
        vector: null,
        confirmed: true,
      },
      { ...this.settings, ...overrides },
      ctx,
    );
  }

  /**
   * Continues a stored chain with one of its suggestions (by index or by entity), or with a
   * query a person typed: the earlier hops are kept as they were.
   */
  async resume(
    previous: EngineResult,
    choice: number | string,
    access: AccessContext,
    overrides: Partial<EngineSettings> = {},
  ): Promise<EngineResult> {
    const ctx = await this.deps.access.resolve(access);
    const settings = { ...this.settings, ...previous.settings, ...overrides };
    const visible = redactResult(previous, ctx);
    // A person confirmed this hop: it counts as much as the hop it follows.
    const weight = visible.hops[visible.hops.length - 1]?.weight ?? 1;
    // only suggestions this asker may see can be chosen (by their index in the stored result)
    const suggestions = previous.suggestions.map((s) => (visible.suggestions.includes(s) ? s : null));
    // a suggestion by index or by its entity; any other text is a query the person typed
    const chosen =
      typeof choice === 'number'
        ? suggestions[choice]
        : suggestions.find((x) => x && foldName(x.entity) === foldName(choice));
    if (typeof choice === 'number' && !chosen)
      throw new RangeError(`no suggestion ${choice} (there are ${suggestions.filter(Boolean).length})`);
    const step: Step = {
      query: chosen?.query ?? String(choice),
      formedBy: 'suggestion',
      bridge: chosen?.entity ?? null,
      bridgeFrom: chosen ? { sourceDocId: chosen.sourceDocId, linkDocId: chosen.linkDocId } : null,
      weight,
      vector: null,
      confirmed: true,
    };
    const state = this.restore(visible);
    // A resumed chain may go one hop past where it stopped, up to maxHops.
    return this.continueChain(
      state,
      step,
      { ...settings, maxHops: Math.max(settings.maxHops, state.hops.length + 1) },
      ctx,
    );
  }

  /**
   * A follow-up question in the context of an earlier chain (e.g. in a Slack thread): it is made
   * answerable on its own from the earlier question and bridges (see contextualize), then asked
   * afresh; the first hop records the rewritten query as formed by 'follow-up'.
   */
  async followUp(
    previous: EngineResult,
    question: string,
    access: AccessContext,
    overrides: Partial<EngineSettings> = {},
  ): Promise<EngineResult> {
    const ctx = await this.deps.access.resolve(access);
    question = boundQuestion(question);
    // only what this asker may see of the earlier chain conditions the new query
    const visible = redactResult(previous, ctx);
    const { query } = contextualize(visible, question);
    const state = freshChain(query);
    const result = await this.continueChain(
      state,
      { query, formedBy: 'follow-up', bridge: null, bridgeFrom: null, weight: 1, vector: null, confirmed: true },
      { ...this.settings, ...overrides },
      ctx,
    );
    return { ...result, asked: question, followUpOf: previous.question };
  }

  /** The chain state of a stored result, already redacted for the asker who continues it. */
  private restore(visible: EngineResult): ChainState {
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

  private async retrieve(
    query: string,
    focus: string | null,
    hop: number,
    vector: Float32Array | null,
    state: ChainState,
    settings: EngineSettings,
    ctx: ResolvedAccess,
  ) {
    const cache = this.deps.queryCache?.enabled ? this.deps.queryCache : null;
    // the key includes the asker's scope
    const key = cache
      ? await cache.key({
          query: focus ? `${query}\u0000${focus}` : query,
          hop,
          exclude: [...state.exclude],
          k: settings.retrieveK,
          scope: ctx.scopeKey,
        })
      : null;
    if (cache && key) {
      const hit = await cache.get(key);
      // and a hit is checked again: nothing the asker may not see is ever served from it
      if (hit) return { ...hit, candidates: hit.candidates.filter((c) => ctx.allowDoc(c.chunk.docId)), cached: true };
    }
    const r = await this.deps.retriever.retrieve(query, {
      k: settings.retrieveK,
      exclude: state.exclude,
      access: ctx,
      ...(vector ? { queryVector: vector } : {}),
      ...(focus ? { focus } : {}),
    });
    const value = { candidates: r.candidates, queryVector: r.queryVector, timings: r.timings };
    if (cache && key) await cache.set(key, value);
    return { ...value, cached: false };
  }

  private async continueChain(
    state: ChainState,
    first: Step,
    settings: EngineSettings,
    ctx: ResolvedAccess,
  ): Promise<EngineResult> {
    const t0 = this.now();
    // the chain leaves the reader its time within the total budget
    const chainDeadline = t0 + settings.totalBudgetMs - READER_RESERVE_MS;
    // an empty question (nothing left once control characters are gone) retrieves nothing
    let step: Step | null = first.query.trim() ? first : null;
    let stopReason: StopReason = step ? 'max_hops' : 'no_new_evidence';
    let suggestions: Suggestion[] = [];
    let early: { answer: Answer; cutShort: boolean } | null = null;
    while (step) {
      if (this.now() > chainDeadline && state.hops.length > 0) {
        stopReason = 'budget';
        state.hops[state.hops.length - 1]!.incomplete = true;
        break;
      }
      const hop = await this.runHop(state, step, settings, ctx, chainDeadline);
      const stop = this.stopReasonFor(state, hop, settings);
      if (stop) {
        stopReason = stop;
        hop.hop.timings.totalMs = this.now() - hop.started;
        break;
      }
      early = await this.answerAfterFirstHop(state, hop, settings, t0);
      if (early) {
        stopReason = 'answered';
        hop.hop.timings.totalMs = this.now() - hop.started;
        break;
      }
      const next = await this.proposeNext(state, hop, step, settings, ctx);
      hop.hop.timings.totalMs = this.now() - hop.started;
      if ('stop' in next) {
        stopReason = next.stop;
        suggestions = next.suggestions;
        break;
      }
      step = next.step;
    }

    const evidence = mergeEvidence(state);
    const r0 = this.now();
    const { answer, cutShort } = early ?? (await this.answer(state, evidence, stopReason, settings, t0));
    // A stop asks a person only where that helps: no short answer stands, and a suggestion is
    // likely to bring what is missing. Otherwise the reply is the answer from the evidence it has.
    if (stopReason === 'low_coherence' && !worthAsking(answer, suggestions, settings)) {
      restateStop(answer, 'low_coherence', 'hop_unsure');
      stopReason = 'hop_unsure';
      suggestions = [];
    } else if (stopReason === 'low_coherence' && settings.stopForPerson === 'when-useful')
      suggestions = likelyEnough(suggestions, settings.suggestionFloor);
    const result: EngineResult = {
      question: state.question,
      hops: state.hops,
      evidence,
      stopReason,
      suggestions,
      incomplete: stopReason === 'budget' || cutShort || state.hops.some((h) => h.incomplete),
      answer,
      timings: { totalMs: this.now() - t0, readMs: this.now() - r0 },
      settings: {
        maxHops: settings.maxHops,
        coherenceThreshold: settings.coherenceThreshold,
        rerankTopK: settings.rerankTopK,
        hopBudgetMs: settings.hopBudgetMs,
        totalBudgetMs: settings.totalBudgetMs,
      },
    };
    this.log.debug(
      { question: state.question, hops: state.hops.length, stopReason, ms: result.timings.totalMs },
      'engine run',
    );
    return result;
  }

  /**
   * One hop: retrieve for the step's query (never returning what an earlier hop established),
   * record the hop, and mark its best ESTABLISHED_PER_HOP chunks as established.
   */
  private async runHop(
    state: ChainState,
    step: Step,
    settings: EngineSettings,
    ctx: ResolvedAccess,
    chainDeadline: number,
  ): Promise<RunHop> {
    const hopNo = state.hops.length + 1;
    const h0 = this.now();
    const deadline = Math.min(h0 + settings.hopBudgetMs, chainDeadline);
    const r = await this.retrieve(step.query, step.bridge, hopNo, step.vector, state, settings, ctx);
    const h1 = this.now();
    const fresh = diversify(r.candidates.filter((c) => !state.exclude.has(c.chunk.id)));
    for (const c of fresh) if (!state.snippets.has(c.chunk.id)) state.snippets.set(c.chunk.id, snippetFrom(c));
    const top = fresh.slice(0, settings.rerankTopK);
    const hop: HopState = {
      hop: hopNo,
      query: step.query,
      formedBy: step.formedBy,
      bridge: step.bridge,
      bridgeFrom: step.bridgeFrom,
      weight: step.weight,
      retrieved: fresh.map(refFrom),
      snippets: top.map((c) => state.snippets.get(c.chunk.id)!),
      candidates: [],
      nextQuery: null,
      coherence: null,
      timings: { ...r.timings, retrieveMs: h1 - h0, decomposeMs: 0, totalMs: 0, cached: r.cached },
      incomplete: false,
    };
    state.hops.push(hop);
    state.questionVector ??= r.queryVector;
    if (step.bridge) state.usedEntities.add(foldName(step.bridge));
    const knownDocsBefore = new Set(state.knownDocs);
    // Nothing new: every top chunk is from a document already known and weak.
    const nothingNew = top.length === 0 || top.every((c) => state.knownDocs.has(c.chunk.docId) && c.score < 0.5);
    if (!nothingNew) {
      // What this hop established (its best chunks) is not retrieved again; lower-ranked chunks may
      // be, when a bridge points right at them.
      const established = top.slice(0, ESTABLISHED_PER_HOP);
      for (const c of established) {
        state.exclude.add(c.chunk.id);
        state.knownDocs.add(c.chunk.docId);
      }
      state.knownText.push(...established.map((c) => `${c.chunk.doc.title} ${c.chunk.text}`));
    }
    return { hop, top, queryVector: r.queryVector, knownDocsBefore, nothingNew, started: h0, deadline };
  }

  /**
   * After the first hop, the answer its evidence holds, when it is a *high* short answer (P(right)
   * at EARLY_ANSWER): the chain stops there. Null to hop on (the reading is then done again, over
   * the whole chain's evidence).
   */
  private async answerAfterFirstHop(
    state: ChainState,
    run: RunHop,
    settings: EngineSettings,
    t0: number,
  ): Promise<{ answer: Answer; cutShort: boolean } | null> {
    if (!settings.answerEarly || run.hop.hop !== 1 || state.hops.length !== 1) return null;
    const read = await this.answer(state, mergeEvidence(state), 'answered', settings, t0);
    return read.answer.value !== null && read.answer.confidence.score >= EARLY_ANSWER ? read : null;
  }

  /** Why the chain ends after this hop without asking for a next one, or null to go on. */
  private stopReasonFor(state: ChainState, run: RunHop, settings: EngineSettings): StopReason | null {
    if (run.nothingNew) return 'no_new_evidence';
    if (this.now() > run.deadline) {
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
      best.rerank >= 0.55
    )
      return 'answered';
    return null;
  }

  /**
   * The next hop: bridge candidates from this hop's evidence, and the coherence check of the best
   * one's query. Below the check, the chain stops and offers the best candidates as suggestions.
   */
  private async proposeNext(
    state: ChainState,
    run: RunHop,
    step: Step,
    settings: EngineSettings,
    ctx: ResolvedAccess,
  ): Promise<{ step: Step } | { stop: StopReason; suggestions: Suggestion[] }> {
    const { hop, top } = run;
    const d0 = this.now();
    const candidates = await this.deps.decomposer.candidates({
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
      deadline: { at: run.deadline, now: this.now },
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
    hop.timings.decomposeMs = this.now() - d0;
    if (this.now() > run.deadline) {
      // finding the bridge used up the hop's time: what it has is the hop's best so far
      hop.incomplete = true;
      return { stop: 'budget', suggestions: [] };
    }
    if (candidates.length === 0 || candidates[0]!.score < MIN_BRIDGE_SCORE)
      return { stop: 'no_bridge', suggestions: [] };
    // Coherence of the best candidate's query with this hop's query, and the gate's probability that
    // following it is right. The best candidate is encoded alone: it decides, and the runners-up are
    // encoded only when the chain stops for a person and offers them. Alone also keeps its int8
    // vector free of batch-mates (dynamic quantisation scales activations per batch).
    const options = candidates.slice(0, SUGGESTIONS);
    const evidenceVector = await this.evidenceVector(top[0]!);
    const coverage = evidenceCoverage(state.question, state.knownText.join(' '));
    const check = (c: BridgeCandidate, i: number, vector: Float32Array) => {
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
    const bestVector = await this.deps.encoder.encodeOne(options[0]!.query);
    const bestCheck = check(options[0]!, 0, bestVector);
    hop.nextQuery = options[0]!.query;
    hop.coherence = bestCheck;
    hop.timings.decomposeMs = this.now() - d0;
    // in shadow mode (measuring the gate) the chain goes on whatever the check says
    if (!bestCheck.passed && !settings.gateShadow) {
      const rest = options.slice(1);
      const restVectors = rest.length ? await this.deps.encoder.encode(rest.map((c) => c.query)) : [];
      const checks = [bestCheck, ...rest.map((c, i) => check(c, i + 1, restVectors[i]!))];
      hop.timings.decomposeMs = this.now() - d0;
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
      return {
        stop: 'low_coherence',
        suggestions: offered.sort((a, b) => (b.coherence.pRight ?? 0) - (a.coherence.pRight ?? 0)),
      };
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

  /**
   * The answer read off the final evidence by the reader, with its calibrated confidence. With less
   * than READER_RESERVE_MS left of the total budget, the reader reads fewer passages (at least one:
   * one window's read is the most the total can overrun), and the answer says so.
   */
  private async answer(
    state: ChainState,
    evidence: Snippet[],
    stopReason: StopReason,
    settings: EngineSettings,
    t0: number,
  ): Promise<{ answer: Answer; cutShort: boolean }> {
    const deps = {
      reader: this.deps.reader,
      chunksOf: (ids: number[]) => this.deps.retriever.store.documents.getChunks(ids),
      windowsOf: (ids: readonly number[]) => this.deps.retriever.windowsOf(ids),
      ...(state.questionVector ? { questionVector: state.questionVector } : {}),
      ...(this.deps.observeLines ? { observeLines: this.deps.observeLines } : {}),
    };
    const left = t0 + settings.totalBudgetMs - this.now();
    const passages =
      left >= READER_RESERVE_MS
        ? settings.readerPassages
        : Math.max(1, Math.floor((settings.readerPassages * Math.max(0, left)) / READER_RESERVE_MS));
    const cutShort = passages < settings.readerPassages;
    return {
      answer: await answerFromEvidence(deps, state.question, state.hops, evidence, stopReason, { passages, cutShort }),
      cutShort,
    };
  }

  /** The vector of the best evidence window, for the directional coherence check. */
  private async evidenceVector(c: Candidate): Promise<Float32Array | null> {
    if (!c.window) return null;
    const ws = (await this.deps.retriever.windowsOf([c.chunk.id])).get(c.chunk.id) ?? [];
    return ws.find((w) => w.id === c.window!.windowId)?.vector ?? null;
  }
}

/**
 * Whether a chain stopped at the gate asks a person: only when no short answer stands and at least
 * one suggestion is likely to bring missing evidence (the gate's P for the hop it would start).
 */
export function worthAsking(
  answer: Pick<Answer, 'value'>,
  suggestions: readonly Pick<Suggestion, 'coherence'>[],
  settings: Pick<EngineSettings, 'stopForPerson' | 'usefulThreshold'>,
): boolean {
  if (suggestions.length === 0) return false;
  if (settings.stopForPerson === 'always') return true;
  return answer.value === null && suggestions.some((s) => (s.coherence.pRight ?? 0) >= settings.usefulThreshold);
}

/**
 * A hop's evidence, diversified: each further chunk of a document already listed loses a little
 * (0.05 per earlier chunk of it), so one long document does not fill all the snippets of a hop.
 */
function diversify(candidates: readonly Candidate[]): Candidate[] {
  const perDoc = new Map<number, number>();
  const adjusted = candidates.map((c, i) => {
    const k = perDoc.get(c.chunk.docId) ?? 0;
    perDoc.set(c.chunk.docId, k + 1);
    return { c, key: c.score - 0.05 * k, i };
  });
  adjusted.sort((a, b) => b.key - a.key || a.i - b.i);
  return adjusted.map((a) => a.c);
}

/**
 * The final ranked evidence: every hop's ranked list, merged by priority weight/rank, where a hop's
 * weight is the product of the gate's P(right) along the chain of bridges that led to it. A sure bridge interleaves its
 * finds with the first hop's (round-robin); a doubtful one ranks them after the first hop's best.
 * Each chunk appears once, at its best position. This is what the answer cites, in order.
 */
function mergeEvidence(state: { hops: HopState[]; snippets: Map<number, Snippet> }): Snippet[] {
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
