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
const TITLE_PARTS = /\s+[-|—]\s+/;

/**
 * A title as a suggestion shows it: without the last part it shares with the title of the page the
 * entity was found on, which is the site's name rather than the page's ("Configuration Files - Apache
 * HTTP Server Version 2.4" beside "apache2ctl - … - Apache HTTP Server Version 2.4" is "Configuration
 * Files"). A button holds 75 characters, and the site's name filled most of them.
 */
export function titleAsShown(title: string, besideTitle: string | null): string {
  if (!besideTitle) return title;
  const parts = title.split(TITLE_PARTS);
  const beside = besideTitle.split(TITLE_PARTS);
  if (parts.length < 2 || beside.length < 2) return title;
  if (foldName(parts.at(-1)!) !== foldName(beside.at(-1)!)) return title;
  const last = [...title.matchAll(new RegExp(TITLE_PARTS.source, 'g'))].at(-1)!;
  return title.slice(0, last.index);
}
