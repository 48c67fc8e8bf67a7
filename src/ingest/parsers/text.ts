import { cleanText, type ParsedDocument } from '../blocks.js';

/**
 * A word broken across lines by a hyphen ("configu-\nration") is one word again, as the PDF reader
 * does: only between lower-case letters, so "Wi-\nFi" and a line that starts a list keep theirs.
 */
export function dehyphenate(para: string): string {
  return para.replace(/(\p{Ll})-\r?\n[ \t]*(\p{Ll})/gu, '$1$2');
}

/** Plain text: paragraphs are separated by blank lines; a line of === or --- underlines a heading. */
export function parseText(source: string): ParsedDocument {
  const blocks: ParsedDocument['blocks'] = [];
  for (const para of source.replace(/^\uFEFF/, '').split(/\r?\n\s*\r?\n/)) {
    const lines = para.split(/\r?\n/);
    const underline = lines.length === 2 ? /^\s*(=+|-+)\s*$/.exec(lines[1]!) : null;
    if (underline && lines[0]!.trim()) {
      blocks.push({ kind: 'heading', text: cleanText(lines[0]!), level: underline[1]!.startsWith('=') ? 1 : 2 });
      continue;
    }
    const text = cleanText(dehyphenate(para));
    if (text) blocks.push({ kind: 'paragraph', text });
  }
  return { title: null, url: null, blocks };
}
