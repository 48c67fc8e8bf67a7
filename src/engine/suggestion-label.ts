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
