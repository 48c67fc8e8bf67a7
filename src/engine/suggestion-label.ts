import { foldName } from './text.js';
import type { Suggestion } from './types.js';

/**
 * A suggestion as a person judges it: the entity as the document writes it, and where following it
 * leads ("Vantor TS-40 → Vantor TS-40 datasheet"; "Project Falcon → its page" when the document is
 * titled by the entity itself). Results stored before suggestions knew their target show the entity.
 */
export function suggestionLabel(s: Pick<Suggestion, 'entity' | 'leadsTo'>): string {
  if (!s.leadsTo) return s.entity;
  return foldName(s.leadsTo) === foldName(s.entity) ? `${s.entity} → its page` : `${s.entity} → ${s.leadsTo}`;
}

/** Where a title's parts divide: " - ", " | ", " — " (an en dash is part of a name: "1996 US Open – Women's Doubles"). */
const TITLE_PARTS = /\s+[-|—]\s+/g;

/** A title split before its last part ("a - b - c" → "a - b" and "c"), or null for a title of one part. */
function lastPart(title: string): { head: string; last: string } | null {
  const cut = [...title.matchAll(TITLE_PARTS)].at(-1);
  return cut ? { head: title.slice(0, cut.index), last: title.slice(cut.index + cut[0].length) } : null;
}

/**
 * A title as a suggestion shows it: without the last part it shares with the title of the page the
 * entity was found on, which is the site's name rather than the page's ("Configuration Files - Apache
 * HTTP Server Version 2.4" beside "apache2ctl - … - Apache HTTP Server Version 2.4" is "Configuration
 * Files"). A button holds 75 characters, and the site's name filled most of them.
 */
export function titleAsShown(title: string, besideTitle: string | null): string {
  const own = lastPart(title);
  const beside = besideTitle === null ? null : lastPart(besideTitle);
  return own && beside && foldName(own.last) === foldName(beside.last) ? own.head : title;
}
