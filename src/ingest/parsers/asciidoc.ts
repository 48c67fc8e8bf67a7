import asciidoctor from '@asciidoctor/core';
import type { ParsedDocument } from '../blocks.js';
import { parseHtml } from './html.js';

// Asciidoctor.js: the reference AsciiDoc processor, compiled to JavaScript (sections, tables, lists,
// includes refused in secure mode); its HTML is read by the same DOM walk as any HTML page.
const processor = asciidoctor();

/** An AsciiDoc file as blocks: rendered to HTML by Asciidoctor, titled by its document title. */
export function parseAsciidoc(text: string): ParsedDocument {
  const doc = processor.load(text, { safe: 'secure' });
  const title = doc.getDocumentTitle({ partition: false });
  const parsed = parseHtml(`<html><body>${title ? `<h1>${String(title)}</h1>` : ''}${doc.convert()}</body></html>`);
  return { ...parsed, title: title ? String(title) : parsed.title };
}
