import path from 'node:path';
import type { Citation } from '../engine/types.js';

/** "KX-220 Datasheet › Calibration (p. 2)". */
export function citationLabel(c: Citation): string {
  const parts = [c.document, ...c.heading_path].filter(Boolean).join(' › ');
  return c.page ? `${parts} (p. ${c.page})` : parts;
}

/** A source path as a person would type it: relative to the working folder when inside it. */
export function displaySource(source: string, cwd = process.cwd()): string {
  const [file, record] = source.split('#', 2) as [string, string | undefined];
  const rel = path.relative(cwd, file);
  const shown = rel && !rel.startsWith('..') && !path.isAbsolute(rel) ? rel : file;
  return record === undefined ? shown : `${shown}#${record}`;
}
