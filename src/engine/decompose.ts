import { LRUCache } from 'lru-cache';
import { dot } from '../models/encoder.js';
import { type MaskedLM, MASK } from '../models/masked-lm.js';
import { analyze, isStopword, type Analysis } from '../models/nlp.js';
import type { Store } from '../store/interfaces.js';
import { textQuery } from './fts-query.js';
import type { Candidate } from './retrieve.js';
import type { CandidateRef, LinkVia } from './types.js';
import type { ResolvedAccess } from './access.js';
import { contentTerms, foldName, termSet } from './text.js';
import { findSlot, extendQuery } from './bridge-query.js';
import {
  type EntityLinks,
  LABELLED_LINKS,
  MENTION_LINKS,
  ENTITY_DF_CAP,
  linkTargets,
  type LinkTarget,
  type RawCandidate,
  namesTarget,
  holdsOwnPage,
  isOwnPage,
  RESOLVES_TO_TITLE,
} from './bridge-links.js';

/**
 * A possible next hop: an entity the evidence introduces (or the question names and nothing covers
 * yet), with the features it was ranked by and the next query it would make. The hop records it
 * as a CandidateRef, with the document of its source chunk added.
 */
export type BridgeCandidate = Omit<CandidateRef, 'sourceDocId'>;

export interface DecomposeInput {
  question: string;
  questionAnalysis: Analysis;
  /** Reranked evidence of the current hop, best first. */
  evidence: readonly Candidate[];
  /** Text of all evidence so far (what is already known). */
  knownText: string;
  /** Documents already in the chain (a bridge to one of them finds nothing new). */
  knownDocIds: ReadonlySet<number>;
  /** Entities already used as bridges. */
  usedEntities: ReadonlySet<string>;
  /** Queries already run (a candidate that would repeat one is dropped). */
  pastQueries?: readonly string[];
  /** The current hop's query, which the next query extends. */
  currentQuery: string;
  /** Vector of the current query, for the lookahead into a linked document. */
  queryVector: Float32Array;
  /** What the asker may see: a bridge never links to, nor is ranked by, a document they may not. */
  access?: ResolvedAccess;
  /**
   * The hop's deadline on the engine's clock: candidates are scored best source first, and past it
   * the rest are left out (each one's entity links and lookahead are the step that is bounded).
   */
  deadline?: { at: number; now: () => number };
}

export interface DecomposerDeps {
  store: Store;
  /** Window vectors of a document's chunks, for the lookahead (the retriever's cached windows). */
  windowsOfDoc: (docId: number) => Promise<Float32Array[]>;
  windowsOfChunks: (chunkIds: readonly number[]) => Promise<Float32Array[]>;
  mlm?: MaskedLM | null;
  /** Hop-1 chunks whose entities are considered. */
  sourceChunks?: number;
  maxCandidates?: number;
}

const FEATURE_WEIGHTS = { link: 1.0, lookahead: 1.5, idf: 0.3, relevance: 0.6, question: 0.7, mlm: 0.3 };
/** Below this a candidate is not worth a hop: the chain stops with what it has. */
export const MIN_BRIDGE_SCORE = 1.2;

/**
 * Candidate score → probability that the bridge leads to needed evidence. Calibrated on the
 * hop-1 bridges of hotpotqa-train-100 (n=46; see docs/benchmarks-history.md): below a score of 1.5 no bridge was
 * right, from 2.0 up about four in five were. The merge of hops' evidence weighs by it.
 */
function bridgeConfidence(score: number): number {
  return 1 / (1 + Math.exp(-2 * (score - 2)));
}

/** An entity worth a hop: has letters, is not a stopword or a bare number, date or unit. */
export function plausibleEntity(e: string): boolean {
  const t = e.trim();
  if (t.length < 2 || t.length > 80) return false;
  if (!/\p{L}/u.test(t)) return false;
  if (isStopword(t)) return false;
  if (
    /^(?:\d+(?:[.,]\d+)?\s*)?(?:°?[CFK]|%|mm|cm|km|kg|g|ms|s|min|h|V|mA|A|W|kW|kWh|MHz|GHz|Hz|dB|dBm|µg\/m³|mg\/L)$/u.test(
      t,
    )
  )
    return false;
  if (/^(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?(?:\s+\d{1,4})?$/i.test(t)) return false;
  if (
    /^(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|today|yesterday|tomorrow|minutes?|hours?|days?|weeks?|months?|years?)$/i.test(
      t,
    )
  )
    return false;
  // a heading's numbering or a document part is no name ("20.4. Resource Consumption", "27.4.1", "Section"),
  // nor is an ordinal on its own ("60th", "2nd")
  if (HEADING_NUMBER.test(t) || DOCUMENT_PARTS.test(t) || ORDINAL.test(t)) return false;
  return true;
}

/** A heading's number at the start: "20.4. …", "27.4.1", "3.2 …" (a year alone, "1960 Summer Olympics", is not one). */
const HEADING_NUMBER = /^(?:\d+\.)+(?:\d+)?(?:\s|$)|^\d+(?:\.\d+)+/;
/** An ordinal on its own: "60th", "2nd". */
const ORDINAL = /^\d+(?:st|nd|rd|th)$/i;
const DOCUMENT_PARTS =
  /^(?:the\s+)?(?:sections?|chapters?|tables?|figures?|pages?|parts?|appendix|appendices|notes?|examples?|see also)$/i;

export class Decomposer {
  private readonly linkCache = new LRUCache<string, EntityLinks>({ max: 20_000 });
  private cacheGeneration = '';

  constructor(private readonly deps: DecomposerDeps) {}

  /** Chunks in the corpus (the N of IDF), kept until the store changes. */
  private chunkCount = 1;

  /** Drops what the cache holds when the store has changed since it was filled. */
  private async refresh(): Promise<void> {
    const gen = `${this.deps.store.index.appliedSeq}:${await this.deps.store.access.accessVersion()}`;
    if (gen === this.cacheGeneration) return;
    this.linkCache.clear();
    this.chunkCount = Math.max(1, (await this.deps.store.documents.counts()).chunks);
    this.cacheGeneration = gen;
  }

  /**
   * Where each entity can lead, strongest first: documents titled by it (Jaccard of the title's
   * terms, a "(disambiguation)" aside; "Rocky" → "ASAP Rocky" is 0.5), sections headed by it, and
   * other chunks that mention it. The work is bounded whatever the corpus size: titles and headings
   * are searched on their own (see Store.entityMentions), mentions are read up to MENTION_LINKS, and
   * the frequency is counted up to ENTITY_DF_CAP. The entities not cached are looked up together, in
   * one store call (one round trip on PostgreSQL). Cached until the store changes.
   */
  private async linksOf(entities: readonly string[], access: ResolvedAccess | undefined): Promise<EntityLinks[]> {
    // the cache was checked against the store by candidates(), the only caller, once per call
    const allowed = access?.docFilter ?? null;
    const keyOf = (entity: string) => `${access?.scopeKey ?? 'local'}\u0000${foldName(entity)}`;
    const out = entities.map((e) => this.linkCache.get(keyOf(e)) ?? null);
    const missing = [...new Set(entities.filter((_, i) => !out[i]))].map((entity) => ({
      entity,
      terms: contentTerms(entity),
      all: textQuery(entity, 'all'),
    }));
    const asked = missing.filter((m) => m.terms.length && m.all.terms.length);
    // Only documents the asker may see count, for the frequency behind IDF and for link targets.
    const mentions = await this.deps.store.text.entityMentions(
      asked.map((m) => m.all),
      { labelled: LABELLED_LINKS, mentioned: MENTION_LINKS },
      allowed,
    );
    // every match was read when the mentions did not fill their limit: then that is the frequency;
    // the others are counted, together
    const full = asked.filter((_, i) => mentions[i]!.mentioned.length >= MENTION_LINKS);
    const counted = await this.deps.store.text.countTextMatches(
      full.map((m) => m.all),
      ENTITY_DF_CAP,
      allowed,
    );
    let next = 0;
    const dfs = asked.map((_, i) =>
      mentions[i]!.mentioned.length < MENTION_LINKS
        ? mentions[i]!.labelled.length + mentions[i]!.mentioned.length
        : counted[next++]!,
    );
    const found = new Map<string, EntityLinks>(missing.map((m) => [m.entity, { df: 0, targets: [] }]));
    for (const [i, m] of asked.entries())
      found.set(m.entity, { df: dfs[i]!, targets: linkTargets(m.terms, mentions[i]!) });
    for (const [entity, links] of found) this.linkCache.set(keyOf(entity), links);
    return entities.map((e, i) => out[i] ?? found.get(e)!);
  }

  private async windowsOfTarget(t: LinkTarget): Promise<Float32Array[]> {
    if (!t.chunkIds) return this.deps.windowsOfDoc(t.docId);
    return this.deps.windowsOfChunks(t.chunkIds);
  }

  /**
   * The next hop's bridge candidates, best first: (1) the names the evidence and the question
   * offer, (2) each linked to a document the chain has not reached and scored by its features,
   * (3) the masked LM's plausibility in the question's slot where one is configured, (4) ranked,
   * each with the next query it forms.
   */
  async candidates(input: DecomposeInput): Promise<BridgeCandidate[]> {
    await this.refresh();
    const raw = proposeCandidates(input, this.deps.sourceChunks ?? 3);
    if (raw.length === 0) return [];
    const scored = await this.linkCandidates(raw, input);
    await this.fillMaskScores(scored, input);
    return rankCandidates(scored, input, this.deps.maxCandidates ?? 8);
  }

  /**
   * Each candidate linked to the strongest document the chain has not reached (nor the one it came
   * from), with its features; one candidate per target document. Phrases that name no document are
   * dropped. Past the hop's deadline the rest are left out.
   */
  private async linkCandidates(raw: readonly RawCandidate[], input: DecomposeInput): Promise<ScoredCandidate[]> {
    const { evidence } = input;
    const n = this.chunkCount;
    const allow = (id: number) => !input.access || input.access.allowDoc(id);
    const topScore = Math.max(1e-6, evidence[0]?.score ?? 1);
    const topRerank = Math.max(1e-6, evidence[0]?.rerank ?? 1);
    const byDoc = new Map<number, number>();
    const scored: ScoredCandidate[] = [];
    const sourceDoc = (r: RawCandidate) => r.chunk?.chunk.docId ?? -1;
    // every candidate's links in one store call
    const allLinks = await this.linksOf(
      raw.map((r) => r.entity),
      input.access,
    );
    const targets = raw.map(
      (r, i) =>
        allLinks[i]!.targets.find(
          (t) => allow(t.docId) && !input.knownDocIds.has(t.docId) && t.docId !== sourceDoc(r),
        ) ?? null,
    );
    // a noun phrase ("short amount", "easier monitoring") is no name unless a document is titled or headed by it, whole
    const named = raw.map((r, i) => r.kind !== 'phrase' || namesTarget(targets[i]!));
    // a name whose own page the chain already holds, and that leads on only to a page mentioning it
    const revisits = raw.map(
      (r, i) =>
        holdsOwnPage(r, allLinks[i]!.targets, input.knownDocIds) && !(targets[i] && isOwnPage(r.entity, targets[i]!)),
    );
    // Lookahead: how well what each entity links to answers the current query, relative to the best
    // evidence so far, from the stored window vectors (no encoding needed); fetched together
    const windows = await Promise.all(
      targets.map((t, i) => (t && named[i] ? this.windowsOfTarget(t) : Promise.resolve([]))),
    );
    for (const [i, r] of raw.entries()) {
      if (input.deadline && scored.length > 0 && input.deadline.now() > input.deadline.at) break;
      const links = allLinks[i]!;
      const target = targets[i]!;
      if (!named[i]) continue;
      let lookahead = 0;
      for (const w of windows[i]!) lookahead = Math.max(lookahead, dot(input.queryVector, w));
      lookahead = Math.min(1.2, lookahead / topRerank);
      const idf = Math.log((n + 1) / (links.df + 1)) / Math.log(n + 1);
      const relevance = r.chunk ? (r.chunk.score / topScore) * (1 / (1 + 0.5 * r.rank)) : 0.6;
      const features = {
        link: target?.link ?? 0,
        lookahead,
        idf,
        relevance,
        question: r.origin === 'question' ? 1 : 0,
        mlm: null as number | null,
      };
      // A mention resolves to the document titled by it: "Rocky" becomes "ASAP Rocky", once per document.
      const entity =
        target && target.via === 'title' && target.link >= RESOLVES_TO_TITLE
          ? target.title.replace(/\s*\([^)]*\)\s*$/, '')
          : r.entity;
      if (input.usedEntities.has(foldName(entity))) continue;
      const candidate: ScoredCandidate = {
        entity,
        origin: r.origin,
        chunk: r.chunk,
        linksTo: target ? target.title : null,
        linkDocId: target?.docId ?? null,
        linkVia: target?.via ?? null,
        ownPageHeld: revisits[i]!,
        features,
      };
      const at = target ? byDoc.get(target.docId) : undefined;
      if (at === undefined) {
        if (target) byDoc.set(target.docId, scored.length);
        scored.push(candidate);
      } else if (scored[at]!.features.relevance + scored[at]!.features.link < relevance + features.link)
        scored[at] = candidate;
    }
    return scored;
  }

  /** Fill-mask plausibility of each candidate in the question's slot (z-scored), when a masked LM is configured. */
  private async fillMaskScores(scored: ScoredCandidate[], input: DecomposeInput): Promise<void> {
    const { question, questionAnalysis: qa } = input;
    const slot = findSlot(question, qa, termSet(input.knownText));
    if (!this.deps.mlm || !slot || scored.length === 0) return;
    const template = `${question.slice(0, slot.start)}${MASK}${question.slice(slot.end)}`;
    const lp = await this.deps.mlm.scoreCandidates(
      template,
      scored.map((s) => s.entity),
    );
    const mu = lp.reduce((a, b) => a + b, 0) / lp.length;
    const sd = Math.sqrt(lp.reduce((a, b) => a + (b - mu) ** 2, 0) / lp.length) || 1;
    for (const [i, s] of scored.entries()) s.features.mlm = (lp[i]! - mu) / sd;
  }
}

/** A candidate linked and featured, before it is scored and given its query. */
interface ScoredCandidate {
  entity: string;
  origin: 'evidence' | 'question';
  chunk: Candidate | null;
  linksTo: string | null;
  linkDocId: number | null;
  linkVia: LinkVia | null;
  ownPageHeld: boolean;
  features: BridgeCandidate['features'];
}

/**
 * The names a hop may go on from: (a) those the top evidence introduces (named entities,
 * identifiers, its documents' titles) and the multi-word noun phrases of the best window ("the
 * radio team lead": a phrase is only a bridge where a document is titled or headed by it, checked
 * when it is linked); (b) entities the question names that no evidence covers yet (the second of a
 * comparison). Never what the hop's query or an earlier bridge already names ("Falcon" adds nothing
 * to "… (Project Falcon)").
 */
function proposeCandidates(input: DecomposeInput, sourceChunks: number): RawCandidate[] {
  const { question, questionAnalysis: qa, evidence } = input;
  const qTerms = termSet(question);
  const known = termSet(input.knownText);
  const named = termSet([input.currentQuery, ...input.usedEntities].join(' '));
  const seen = new Set<string>();
  const raw: RawCandidate[] = [];
  const consider = (e: string, c: Candidate, rank: number, kind: RawCandidate['kind']) => {
    if (!plausibleEntity(e)) return;
    const key = foldName(e);
    if (seen.has(key) || input.usedEntities.has(key)) return;
    const terms = contentTerms(e);
    if (terms.length === 0 || terms.every((t) => qTerms.has(t) || named.has(t))) return;
    seen.add(key);
    raw.push({ entity: e, origin: 'evidence', chunk: c, rank, kind });
  };
  for (const [rank, c] of evidence.slice(0, sourceChunks).entries()) {
    // a document's own title leads back to where the chain already is
    const title = input.knownDocIds.has(c.chunk.docId) ? [] : [c.chunk.doc.title];
    for (const e of [...c.chunk.entities, ...title]) consider(e, c, rank, 'name');
  }
  const best = evidence[0];
  if (best?.window) {
    const windowText = best.chunk.text.slice(best.window.charStart, best.window.charEnd);
    // only phrases new to the question: "calibration point" says nothing a calibration question does not
    for (const m of analyze(windowText).mentions)
      if (m.kind === 'noun' && /\s/.test(m.text) && !contentTerms(m.text).some((t) => qTerms.has(t)))
        consider(m.text, best, 0, 'phrase');
  }
  for (const m of qa.mentions) {
    if ((m.kind !== 'proper' && m.kind !== 'code') || !plausibleEntity(m.text)) continue;
    const key = foldName(m.text);
    const terms = contentTerms(m.text);
    if (seen.has(key) || input.usedEntities.has(key) || terms.length === 0) continue;
    if (terms.filter((t) => known.has(t)).length / terms.length >= 0.5) continue;
    seen.add(key);
    raw.push({ entity: m.text, origin: 'question', chunk: null, rank: 0, kind: 'name' });
  }
  return raw;
}

/** The candidates scored (FEATURE_WEIGHTS), each with the next query it forms, best first; one that repeats a past query is dropped. */
function rankCandidates(scored: readonly ScoredCandidate[], input: DecomposeInput, max: number): BridgeCandidate[] {
  const w = FEATURE_WEIGHTS;
  const past = new Set((input.pastQueries ?? []).map(foldName));
  const currentSlot = findSlot(input.currentQuery, analyze(input.currentQuery), termSet(input.knownText));
  return scored
    .map((s): BridgeCandidate => {
      const f = s.features;
      const score =
        w.link * f.link +
        w.lookahead * f.lookahead +
        w.idf * f.idf +
        w.relevance * f.relevance +
        w.question * f.question +
        w.mlm * (f.mlm ?? 0);
      const { query, formedBy } = extendQuery(input.currentQuery, s.entity, currentSlot);
      return {
        entity: s.entity,
        origin: s.origin,
        chunkId: s.chunk?.chunk.id ?? null,
        linksTo: s.linksTo,
        linkDocId: s.linkDocId,
        linkVia: s.linkVia,
        ownPageHeld: s.ownPageHeld,
        features: f,
        score,
        confidence: bridgeConfidence(score),
        query,
        formedBy,
      };
    })
    .filter((c) => !past.has(foldName(c.query)))
    .sort((a, b) => b.score - a.score)
    .slice(0, max);
}
