import { createRequire } from 'node:module';
import type asciidoctorFactory from '@asciidoctor/core';
import type { ParsedDocument } from '../blocks.js';
import { parseHtml } from './html.js';

// Asciidoctor.js: the reference AsciiDoc processor, compiled to JavaScript (sections, tables, lists,
// includes refused in secure mode); its HTML is read by the same DOM walk as any HTML page. It is
// required with the first AsciiDoc file (its CommonJS build), not with every command: 0.4 s a start.
let processor: ReturnType<typeof asciidoctorFactory> | null = null;
const asciidoctor = () =>
  (processor ??= (createRequire(import.meta.url)('@asciidoctor/core') as typeof asciidoctorFactory)());

/** An AsciiDoc file as blocks: rendered to HTML by Asciidoctor, titled by its document title. */
export function parseAsciidoc(text: string): ParsedDocument {
  const doc = asciidoctor().load(text, { safe: 'secure' });
  const title = doc.getDocumentTitle({ partition: false });
  const parsed = parseHtml(`<html><body>${title ? `<h1>${String(title)}</h1>` : ''}${doc.convert()}</body></html>`);
  return { ...parsed, title: title ? String(title) : parsed.title };
}
