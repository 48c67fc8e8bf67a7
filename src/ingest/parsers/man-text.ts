import { cleanText, type Block } from '../blocks.js';
import { termEntry } from '../entries.js';
import { indentOf, isWrappedProse } from './pre-prose.js';
import { dehyphenate } from './text.js';

/**
 * A manual page formatted as text and published in `<pre>` (Postfix's `qmgr.8.html`: the whole page
 * one block): its sections are lines in capitals at the margin, its terms ("maximal_queue_lifetime
 * (5d)", "-s site") lines with their description indented deeper under them. Read as mandoc's HTML
 * is read: each section a heading, each term a heading and the entry its description belongs to,
 * the description opened by its term; prose unwrapped, examples kept as code.
 */

/** A section heading of a formatted manual page: capitals at the margin ("DESCRIPTION", "OTHER RESOURCE AND RATE CONTROLS"). */
const SECTION = /^[A-Z][A-Z0-9 ,&/()'-]{2,}$/;
/** A term is a short line: longer, it is a sentence whose next line happens to be indented. */
const TERM_MAX_WORDS = 8;

const isSection = (line: string): boolean => indentOf(line) === 0 && SECTION.test(line.trim());

/** Whether preformatted text is a formatted manual page: two section headings at the margin at least. */
export function isManPageText(text: string): boolean {
  let sections = 0;
  for (const line of text.split('\n')) if (isSection(line) && ++sections >= 2) return true;
  return false;
}

/** A run of lines as blocks: prose unwrapped into a paragraph, anything else kept as code. */
function textBlocks(lines: readonly string[], lead: string | null): Block[] {
  const out: Block[] = [];
  for (const para of lines.join('\n').split(/\n[ \t]*\n/)) {
    const ls = para.split('\n').filter((l) => l.trim());
    if (!ls.length) continue;
    const prose = isWrappedProse(ls) || (new Set(ls.map(indentOf)).size === 1 && !/[{}=<>|$]/.test(para));
    if (!prose) {
      out.push({ kind: 'code', text: para.replace(/^\n+|\n+$/g, '') });
      continue;
    }
    const text = cleanText(dehyphenate(ls.join('\n')));
    out.push({ kind: 'paragraph', text: lead && !out.length ? `${lead}: ${text}` : text });
  }
  return out;
}

/** A formatted manual page's lines as headings, term entries with their descriptions, paragraphs and code. */
export function manPageBlocks(text: string, termLevel: number): Block[] {
  const lines = text.split('\n');
  const out: Block[] = [];
  let loose: string[] = [];
  let inTerms = false;
  const flushLoose = () => {
    out.push(...textBlocks(loose, null));
    loose = [];
  };
  // the next line with text after line i (read on each blank line: a scan, not a copy of the rest)
  const nextFilled = (i: number) => {
    let k = i + 1;
    while (k < lines.length && !lines[k]!.trim()) k++;
    return lines[k] ?? '';
  };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (isSection(line)) {
      flushLoose();
      if (inTerms) out.push({ kind: 'section_end', text: '', level: termLevel });
      inTerms = false;
      out.push({ kind: 'heading', text: cleanText(line), level: 2 });
      continue;
    }
    const next = lines[i + 1] ?? '';
    const isTerm =
      line.trim() &&
      next.trim() &&
      indentOf(next) > indentOf(line) &&
      line.trim().split(/\s+/).length <= TERM_MAX_WORDS;
    if (!isTerm) {
      loose.push(line);
      continue;
    }
    flushLoose();
    // the description: every line indented deeper than the term, blank lines between its paragraphs
    let j = i + 1;
    while (
      j < lines.length &&
      (!lines[j]!.trim() ? indentOf(nextFilled(j)) > indentOf(line) : indentOf(lines[j]!) > indentOf(line))
    )
      j++;
    const term = cleanText(line);
    const entry = termEntry(term);
    out.push({ kind: 'heading', text: term, level: termLevel });
    for (const b of textBlocks(lines.slice(i + 1, j), term)) out.push(entry ? { ...b, entry } : b);
    inTerms = true;
    i = j - 1;
  }
  flushLoose();
  if (inTerms) out.push({ kind: 'section_end', text: '', level: termLevel });
  return out;
}
