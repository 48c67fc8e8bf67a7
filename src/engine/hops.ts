import { type Logger, silentLogger } from '../log.js';
import type { AccessContext } from '../store/access.js';
import type { ResolvedAccess } from './access.js';
import { answerFromEvidence } from './answer/index.js';
import { restateStop } from './answer/compose.js';
import { ENGINE_DEFAULTS } from './defaults.js';
import { foldName } from './text.js';
import { GATE_THRESHOLD, USEFUL_THRESHOLD } from './gate.js';
import { likelyEnough, SUGGESTION_FLOOR, worthAsking } from './offer.js';
import { redactResult } from './redact.js';
import { contextualize } from './follow-up.js';
import { refFrom, snippetFrom } from './snippet.js';
import type { Answer, EngineResult, HopState, Snippet, StopReason, Suggestion } from './types.js';
import type { EngineSettings } from './settings.js';
import { proposeNext, type NextHopDeps } from './next-hop.js';
import {
  boundQuestion,
  freshChain,
  type Step,
  type ChainState,
  ESTABLISHED_PER_HOP,
  mergeEvidence,
  type RunHop,
  diversify,
  restoreChain,
  stopReasonFor,
} from './chain.js';
import type { EngineApi, EngineDeps } from './api.js';

const DEFAULT_SETTINGS: EngineSettings = {
  ...ENGINE_DEFAULTS,
  gateThreshold: GATE_THRESHOLD,
  usefulThreshold: USEFUL_THRESHOLD,
  suggestionFloor: SUGGESTION_FLOOR,
};

/**
 * Time the chain leaves the reader within the total budget: the reader's p95 on 2 cores (docs/benchmarks-history.md,
 * "Reader"); a chain that reaches it stops, marked incomplete.
 */
const READER_RESERVE_MS = 250;

/**
 * The multi-hop engine: a state machine of up to maxHops hops. Each hop retrieves (hybrid, never
 * returning earlier evidence), reranks by window, finds the bridge entity and forms the next query,
 * then checks coherence; below the threshold it stops and offers suggested next hops instead of
 * guessing. It stops early when the evidence answers the question, when nothing new appears, or at
 * the time budget (the hop keeps its best-so-far, marked incomplete). Every hop is recorded.
 */
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
    const state = restoreChain(visible);
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
    while (step) {
      if (this.now() > chainDeadline && state.hops.length > 0) {
        stopReason = 'budget';
        state.hops[state.hops.length - 1]!.incomplete = true;
        break;
      }
      const hop = await this.runHop(state, step, settings, ctx, chainDeadline);
      const stop = stopReasonFor(state, hop, settings, this.now);
      if (stop) {
        stopReason = stop;
        hop.hop.timings.totalMs = this.now() - hop.started;
        break;
      }
      const next = await proposeNext(this.nextHopDeps(), state, hop, step, settings, ctx);
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
    const { answer, cutShort } = await this.answer(state, evidence, stopReason, settings, t0);
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

  private nextHopDeps(): NextHopDeps {
    return {
      decomposer: this.deps.decomposer,
      encoder: this.deps.encoder,
      retriever: this.deps.retriever,
      now: this.now,
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
      ...(this.deps.observeSpans ? { observeSpans: this.deps.observeSpans } : {}),
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
}
