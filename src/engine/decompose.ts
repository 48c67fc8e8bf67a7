import { LRUCache } from 'lru-cache';
import { dot } from '../models/encoder.js';
import type { MaskedLM } from '../models/masked-lm.js';
import { MASK } from '../models/masked-lm.js';
import { analyze, isStopword, type Analysis, type Mention } from '../models/nlp.js';
import type { Store } from '../store/interfaces.js';
import type { EntityMentions } from '../store/types.js';
import { textQuery } from './fts-query.js';
import type { Candidate } from './retrieve.js';
import type { CandidateRef, LinkVia } from './types.js';
import type { ResolvedAccess } from './access.js';
import { contentTerms, foldName, termSet } from './text.js';

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
 * hop-1 bridges of hotpotqa-train-100 (n=46; see BENCHMARKS.md): below a score of 1.5 no bridge was
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

/**
 * Decomposition: finds the bridge entity in the top evidence and forms the next hop's query. BERT
 * is the semantic navigator here (no LLM): candidates are ranked by how well they link to a
 * document of their own (entity → title), corpus IDF, the relevance of the evidence they come from,
 * whether the question itself names them, and, with a masked LM configured, fill-mask plausibility
 * in the question's slot. The next query fills the slot: "the sensor used in Project Falcon" →
 * "Vantor TS-40".
 */
/** Where an entity leads: a document titled by it, a section headed by it, or another mention of it. */
interface LinkTarget {
  docId: number;
  title: string;
  /** 1 = the title is exactly the entity; a heading or a mere mention links more weakly. */
  link: number;
  via: LinkVia;
  /** For heading and mention links: the chunks concerned (the lookahead reads their windows). */
  chunkIds: number[] | null;
}

/** An entity as first found: a name (entity, identifier, title), or a noun phrase of the best window. */
interface RawCandidate {
  entity: string;
  origin: 'evidence' | 'question';
  chunk: Candidate | null;
  rank: number;
  kind: 'name' | 'phrase';
}

/** The target is titled or headed by the entity's words, all of them and no others. */
function namesTarget(t: LinkTarget | null): boolean {
  return !!t && ((t.via === 'title' && t.link >= 1) || (t.via === 'heading' && t.link >= HEADING_LINK));
}

interface EntityLinks {
  df: number;
  targets: LinkTarget[];
}

/** A mention whose title link is this strong stands for the titled document ("Rocky" → "ASAP Rocky"). */
const RESOLVES_TO_TITLE = 0.5;
/** Link strengths of the weaker kinds: a heading names the entity; a body merely mentions it. */
const HEADING_LINK = 0.8;
const MENTION_LINK = 0.35;
/** Chunks read per entity for its links: titled or headed by it, and merely mentioning it. */
const LABELLED_LINKS = 40;
const MENTION_LINKS = 60;
/**
 * An entity's frequency (for IDF) is counted up to here. Past it the entity is simply common: at
 * 25k chunks its IDF feature is at most 0.32 of 1 (weight 0.3), so an exact count would change a
 * candidate's score by at most 0.1, and counting would read the whole posting list of a common name.
 */
const ENTITY_DF_CAP = 1000;

/** The documents an entity's mentions lead to, strongest link first, one per document. */
function linkTargets(terms: readonly string[], mentions: EntityMentions): LinkTarget[] {
  const want = new Set(terms);
  const jaccard = (text: string) => {
    const have = termSet(text);
    let inter = 0;
    for (const t of want) if (have.has(t)) inter++;
    return inter < want.size ? 0 : inter / (want.size + have.size - inter);
  };
  const byDoc = new Map<number, LinkTarget>();
  const mentionChunks = new Map<number, number[]>();
  for (const r of [...mentions.labelled, ...mentions.mentioned]) {
    const titleLink = jaccard(r.title.replace(/\s*\([^)]*\)\s*$/, ''));
    const headingLink = HEADING_LINK * Math.max(0, ...r.headingPath.map(jaccard));
    let t: LinkTarget;
    if (titleLink > 0 && titleLink >= headingLink)
      t = { docId: r.docId, title: r.title, link: titleLink, via: 'title', chunkIds: null };
    else if (headingLink > 0)
      t = { docId: r.docId, title: r.title, link: headingLink, via: 'heading', chunkIds: [r.chunkId] };
    else {
      const list = mentionChunks.get(r.docId) ?? [];
      list.push(r.chunkId);
      mentionChunks.set(r.docId, list);
      t = { docId: r.docId, title: r.title, link: MENTION_LINK, via: 'mention', chunkIds: list };
    }
    const prev = byDoc.get(r.docId);
    if (!prev || t.link > prev.link) byDoc.set(r.docId, t);
    else if (prev.via === 'heading' && t.via === 'heading') prev.chunkIds!.push(r.chunkId);
  }
  return [...byDoc.values()].sort((a, b) => b.link - a.link);
}

/**
 * The names a title gives its document: the whole title, and its lead before a description or a
 * site's suffix ("apache2ctl - Apache HTTP Server Control Interface - …" → "apache2ctl", "socket(7)"
 * → "socket", "INC-2024-031: Telemetry dropout …" → "INC-2024-031").
 */
export function titleNames(title: string): string[] {
  const whole = title.replace(/\s*\([^)]*\)\s*$/, '');
  const lead = /^(.+?)(?:\s+[-–—|]\s+|:\s+|\(\d\w*\)$)/.exec(title)?.[1];
  return [...new Set([whole, lead].filter((x): x is string => !!x).map(foldName))];
}

/**
 * The target is the entity's own page: titled by it, or by it before a description, or by a title
 * the entity resolves to ("Falcon" → "Project Falcon", as linkCandidates renames it).
 */
function isOwnPage(entity: string, t: LinkTarget): boolean {
  return t.via === 'title' && (t.link >= RESOLVES_TO_TITLE || titleNames(t.title).includes(foldName(entity)));
}

/** The chain already holds the entity's own page (or found the entity there): following it reads that page again. */
function holdsOwnPage(r: RawCandidate, targets: readonly LinkTarget[], known: ReadonlySet<number>): boolean {
  return targets.some((t) => (known.has(t.docId) || t.docId === r.chunk?.chunk.docId) && isOwnPage(r.entity, t));
}

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
    const allowed = access?.allowedDocs ?? null;
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

/**
 * The slot of a question: the span that stands for the entity the next hop needs, i.e. a noun phrase
 * that leads to what the evidence already covers ("the temperature sensor used in Project Falcon",
 * "the woman who portrayed Corliss Archer in the film Kiss and Tell").
 */
const RELATIVE =
  /^\s*,?\s*(whose|that|which|who|whom|where|used|made|built|owned|run|led|operated|installed|mounted|deployed|published|written|directed|produced|founded)\b/i;

export function findSlot(
  question: string,
  qa: Analysis,
  known: ReadonlySet<string>,
): { start: number; end: number } | null {
  const covered = (m: Mention) => {
    const t = contentTerms(m.text);
    return t.length > 0 && t.filter((x) => known.has(x)).length / t.length >= 0.5;
  };
  const anchors = qa.mentions
    // numbers are not anchors: "−20 °C" is a condition of the question, not what the slot refers to
    .filter((m) => (m.kind === 'proper' || m.kind === 'code' || m.kind === 'date') && covered(m))
    .sort((a, b) => a.start - b.start);
  const nouns = qa.mentions.filter((m) => m.kind === 'noun');
  const withDeterminer = (start: number) => {
    const det = /\b(the|a|an|its|their|his|her)\s+$/i.exec(question.slice(Math.max(0, start - 6), start));
    return det ? start - det[0].length : start;
  };
  for (const anchor of anchors) {
    // Possessive: "Project Osprey's particulate sensor" → the sensor is the slot.
    const poss = /^(?:'s|’s|')\s+/.exec(question.slice(anchor.end));
    if (poss) {
      const head = nouns.find(
        (m) => m.start >= anchor.end + poss[0].length && m.start <= anchor.end + poss[0].length + 2,
      );
      if (head) return { start: withDeterminer(anchor.start), end: head.end };
    }
    // "the temperature sensor used in Project Falcon", "the woman who portrayed … Kiss and Tell",
    // "the project whose drone lost telemetry on …": the noun phrase a relative clause or participle
    // attaches to the anchor; failing that, the nearest noun phrase before it.
    const before = nouns
      .filter((m) => m.end <= anchor.start && anchor.start - m.end <= 60)
      .sort((a, b) => b.end - a.end);
    const head = before.find((m) => RELATIVE.test(question.slice(m.end, anchor.start))) ?? before[0];
    if (head && !/[,;?]/.test(question.slice(head.end, anchor.start))) {
      let end = anchor.end;
      for (const a of anchors) if (a.start >= end && a.start - end <= 24) end = a.end;
      return { start: withDeterminer(head.start), end };
    }
  }
  return null;
}

/**
 * The next query, as a question a person reads: the entity stands where the question's slot was,
 * the slot's words after it as an aside ("What calibration offset applies at −20 °C to the
 * temperature sensor used in Project Falcon?" → "… to Vantor TS-40 (the temperature sensor used in
 * Project Falcon)?"). Every word of the question stays, so the hop still asks what the question
 * asks: dropping the slot's words moved the sample's −20 °C question to the −40 °C row of the
 * datasheet. Without a slot the entity is set after the question's words, once ("How do I undo a
 * commit — git revert?").
 */
export function extendQuery(
  current: string,
  entity: string,
  slot: { start: number; end: number } | null,
): { query: string; formedBy: 'slot-fill' | 'appended' } {
  const tidy = (q: string) =>
    q
      .replace(/\s+/g, ' ')
      .replace(/\s+([?.!,;:])/g, '$1')
      .trim();
  if (slot) {
    // never inside a word ("Jung Joon-young"), nor inside a quotation or parenthesis left open
    let end = slot.end;
    while (end < current.length && /[^\s,;:?!.]/.test(current[end]!)) end++;
    // the slot's own words stay beside it, as an aside: they are what retrieval matched the evidence by
    const described = current.slice(slot.start, end).trim();
    return {
      query: tidy(`${current.slice(0, slot.start)} ${entity} (${described}) ${current.slice(end)}`),
      formedBy: 'slot-fill',
    };
  }
  const m = /[?.!\s]*$/.exec(current);
  const stem = current.slice(0, m ? m.index : current.length);
  // the entity once: a query that already names it is not extended again
  if (foldName(stem).includes(foldName(entity))) return { query: tidy(`${stem}?`), formedBy: 'appended' };
  return { query: tidy(`${stem} — ${entity}?`), formedBy: 'appended' };
}
