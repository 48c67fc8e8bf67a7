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

/**
 * A model's text made safe for a terminal: control characters (an ANSI or OSC escape, a carriage
 * return that overwrites the line) go, newlines and tabs stay.
 */
export function printable(text: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: removing them is the point
  return text.replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g, '');
}
