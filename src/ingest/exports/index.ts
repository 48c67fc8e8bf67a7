/** Wiki exports a folder may be (Confluence, Notion): recognised by their shape, read as their pages. */
import {
  type ConfluenceOrigin,
  confluenceFiles,
  confluenceLink,
  isConfluenceExport,
  parseConfluencePage,
  underItsPage,
} from './confluence.js';
import { asNotionPage, isNotionExport, type NotionOrigin, notionFiles, notionLink } from './notion.js';
import type { ParsedDocument } from '../blocks.js';
import path from 'node:path';

export type ExportOrigin = ConfluenceOrigin | NotionOrigin;

/** The documents of a folder that is a wiki export, or null for an ordinary folder. */
export function exportFiles<K>(
  dir: string,
  kindOf: (file: string) => K | undefined,
): { path: string; kind: K; origin: ExportOrigin }[] | null {
  if (isConfluenceExport(dir)) return confluenceFiles(dir, kindOf);
  if (isNotionExport(dir)) return notionFiles(dir, kindOf);
  return null;
}

/** The link of an exported page: Confluence's page address under the site's base URL, Notion's page address. */
export function exportLink(origin: ExportOrigin, baseUrl: string | null): string | null {
  if (origin.kind === 'notion') return notionLink(origin.id);
  return baseUrl ? confluenceLink(baseUrl, path.basename(origin.root), origin.pageId) : null;
}

/**
 * A file of an export parsed as what it is in its wiki: `parse` reads it as an ordinary file of its
 * kind; a Confluence page is read without the export's chrome instead.
 */
export async function parseExported(
  file: string,
  origin: ExportOrigin,
  text: (() => string) | null,
  parse: () => Promise<ParsedDocument>,
): Promise<ParsedDocument> {
  if (origin.kind === 'notion') return asNotionPage(await parse(), file, origin, text?.() ?? null);
  if (text && /\.html?$/i.test(file)) return parseConfluencePage(text());
  return underItsPage(await parse(), file, origin);
}
