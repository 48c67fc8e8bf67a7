/** Where a bridge entity may link: the chunks titled, headed or mentioning it, and whether it holds its own page. */
import type { EntityMentions } from '../store/types.js';
import type { Candidate } from './retrieve.js';
import type { LinkVia } from './types.js';
import { foldName, termSet } from './text.js';

/**
 * Decomposition: finds the bridge entity in the top evidence and forms the next hop's query. BERT
 * is the semantic navigator here (no LLM): candidates are ranked by how well they link to a
 * document of their own (entity → title), corpus IDF, the relevance of the evidence they come from,
 * whether the question itself names them, and, with a masked LM configured, fill-mask plausibility
 * in the question's slot. The next query fills the slot: "the sensor used in Project Falcon" →
 * "Vantor TS-40".
 */
/** Where an entity leads: a document titled by it, a section headed by it, or another mention of it. */
export interface LinkTarget {
  docId: number;
  title: string;
  /** 1 = the title is exactly the entity; a heading or a mere mention links more weakly. */
  link: number;
  via: LinkVia;
  /** For heading and mention links: the chunks concerned (the lookahead reads their windows). */
  chunkIds: number[] | null;
}

/** An entity as first found: a name (entity, identifier, title), or a noun phrase of the best window. */
export interface RawCandidate {
  entity: string;
  origin: 'evidence' | 'question';
  chunk: Candidate | null;
  rank: number;
  kind: 'name' | 'phrase';
}

/** The target is titled or headed by the entity's words, all of them and no others. */
export function namesTarget(t: LinkTarget | null): boolean {
  return !!t && ((t.via === 'title' && t.link >= 1) || (t.via === 'heading' && t.link >= HEADING_LINK));
}

export interface EntityLinks {
  df: number;
  targets: LinkTarget[];
}

/** A mention whose title link is this strong stands for the titled document ("Rocky" → "ASAP Rocky"). */
export const RESOLVES_TO_TITLE = 0.5;

/** Link strengths of the weaker kinds: a heading names the entity; a body merely mentions it. */
const HEADING_LINK = 0.8;

const MENTION_LINK = 0.35;

/** Chunks read per entity for its links: titled or headed by it, and merely mentioning it. */
export const LABELLED_LINKS = 40;

export const MENTION_LINKS = 60;

/**
 * An entity's frequency (for IDF) is counted up to here. Past it the entity is simply common: at
 * 25k chunks its IDF feature is at most 0.32 of 1 (weight 0.3), so an exact count would change a
 * candidate's score by at most 0.1, and counting would read the whole posting list of a common name.
 */
export const ENTITY_DF_CAP = 1000;

/** The documents an entity's mentions lead to, strongest link first, one per document. */
export function linkTargets(terms: readonly string[], mentions: EntityMentions): LinkTarget[] {
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
export function isOwnPage(entity: string, t: LinkTarget): boolean {
  return t.via === 'title' && (t.link >= RESOLVES_TO_TITLE || titleNames(t.title).includes(foldName(entity)));
}

/** The chain already holds the entity's own page (or found the entity there): following it reads that page again. */
export function holdsOwnPage(r: RawCandidate, targets: readonly LinkTarget[], known: ReadonlySet<number>): boolean {
  return targets.some((t) => (known.has(t.docId) || t.docId === r.chunk?.chunk.docId) && isOwnPage(r.entity, t));
}
