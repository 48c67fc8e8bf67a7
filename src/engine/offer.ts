import type { Answer, Suggestion, CandidateRef } from './types.js';
import type { EngineSettings } from './settings.js';

/**
 * Which suggestions a stop lists for a person. Each rule was measured on every suggestion of every
 * stop at the gate over the five tuning sets, each followed as a click would and labelled by
 * whether it brought a supporting passage still missing (`ragask eval`; docs/benchmarks-history.md, "Suggestions
 * a person can judge"). teamdocs-git was not looked at.
 */

/**
 * A stop that asks on its own lists no suggestion below this P(brings missing evidence): 12 of 546
 * such clicks were useful (2 %), against 9 of 42 at or above it. A stop a person asked for (their
 * own threshold) lists them all.
 */
export const SUGGESTION_FLOOR = 0.2;

/**
 * A name found on many of the corpus's chunks ("Linux" in the man pages, "Apache" in httpd's manual)
 * is no lead a person would follow unless a page is titled by it: below this IDF feature (a
 * frequency of about N^0.6 of N chunks) none of 38 such clicks was useful.
 */
export const COMMON_NAME_IDF = 0.4;

/** A title link this strong names the page after the entity ("Project Falcon" → "Project Falcon"). */
const OWN_PAGE_LINK = 0.5;

/**
 * A candidate a person can judge by its label: it leads to a page the chain has not read, the
 * entity's own page is not already read (which makes "apache2ctl → Configuration Files" a mere
 * mention elsewhere), and it is not a name found everywhere, unless a page is titled by it.
 */
export function worthOffering(c: Pick<CandidateRef, 'linkDocId' | 'linkVia' | 'ownPageHeld' | 'features'>): boolean {
  if (c.linkDocId === null || c.ownPageHeld) return false;
  const ownPage = c.linkVia === 'title' && c.features.link >= OWN_PAGE_LINK;
  return ownPage || c.features.idf >= COMMON_NAME_IDF;
}

/** The suggestions a stop that asks on its own lists: those not unlikely to bring what is missing. */
export function likelyEnough<S extends Pick<Suggestion, 'coherence'>>(
  suggestions: readonly S[],
  floor: number = SUGGESTION_FLOOR,
): S[] {
  return suggestions.filter((s) => (s.coherence.pRight ?? 0) >= floor);
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
