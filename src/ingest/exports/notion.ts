/**
 * A Notion workspace export ("Export → Markdown & CSV", unzipped): every page a Markdown file and
 * every database a CSV (with `<name>_all.csv` beside it in newer exports: all rows, not one view's),
 * each named by its title and its 32-hex id ("Runbooks 8a1f…c3e2.md"), the page's children in a
 * folder of the same name, the whole inside an `Export-<uuid>` folder.
 */
import path from 'node:path';
import fg from 'fast-glob';
import type { Block, ParsedDocument } from '../blocks.js';

/** The 32-hex id Notion ends every exported file and folder name with. */
const ID = /\s+([0-9a-f]{32})$/i;
/** The wrapper folder an export unzips into. */
const WRAPPER = /^Export-[0-9a-f-]{36}$/i;

export interface NotionOrigin {
  kind: 'notion';
  /** The page's or database's id. */
  id: string;
  /** The pages above it, by title. */
  trail: string[];
}

/** A name without its extension and its Notion id ("Runbooks 8a1f…c3e2.md" → "Runbooks"). */
function withoutNotionId(name: string): string {
  return name
    .replace(/(_all)?\.(md|csv)$/i, '')
    .replace(ID, '')
    .trim();
}

const notionId = (name: string) => ID.exec(name.replace(/(_all)?\.(md|csv)$/i, ''))?.[1]?.toLowerCase() ?? null;

/** Whether a folder is a Notion export: most of its pages and databases carry a Notion id in their names. */
export function isNotionExport(dir: string): boolean {
  const files = fg.sync('**/*.{md,csv}', { cwd: dir, onlyFiles: true, caseSensitiveMatch: false, deep: 4 });
  const named = files.filter((f) => notionId(path.basename(f)) !== null).length;
  return named > 0 && named * 2 >= files.length;
}

/**
 * The documents of a Notion export: each page, and each database once (its `_all.csv` where the
 * export holds one), with its id and the titles of the pages above it.
 */
export function notionFiles<K>(
  dir: string,
  kindOf: (file: string) => K | undefined,
): { path: string; kind: K; origin: NotionOrigin }[] {
  const files = fg.sync('**/*.{md,csv}', { cwd: dir, onlyFiles: true, caseSensitiveMatch: false }).sort();
  const all = new Set(files.filter((f) => /_all\.csv$/i.test(f)));
  const out: { path: string; kind: K; origin: NotionOrigin }[] = [];
  for (const f of files) {
    if (/\.csv$/i.test(f) && !/_all\.csv$/i.test(f) && all.has(f.replace(/\.csv$/i, '_all.csv'))) continue;
    const id = notionId(path.basename(f));
    const kind = kindOf(f);
    if (!id || kind === undefined) continue;
    const trail = path
      .dirname(f)
      .split('/')
      .filter((d) => d !== '.' && !WRAPPER.test(d))
      .map(withoutNotionId);
    out.push({ path: path.join(dir, f), kind, origin: { kind: 'notion', id, trail } });
  }
  return out;
}

/**
 * A page or database read with its own title (no id) under the pages above it. A database's page
 * (`source`: its Markdown) opens with its properties, one "Owner: Payments" a line under its title:
 * read as its database's row is ("Owner: Payments; Tier: 1; …"), the entry of the row the page is.
 */
export function asNotionPage(
  doc: ParsedDocument,
  file: string,
  origin: NotionOrigin,
  source: string | null,
): ParsedDocument {
  const title = doc.title ? withoutNotionId(doc.title) : withoutNotionId(path.basename(file));
  const rows = source ? pageProperties(source) : null;
  const at = doc.blocks.findIndex((b) => b.kind !== 'heading');
  // the properties are the page's first paragraph, as Markdown read it ("Owner: Payments Tier: 1 …")
  const sheet = rows && at >= 0 && doc.blocks[at]!.kind === 'paragraph' ? doc.blocks[at]! : null;
  if (!rows || !sheet?.text.startsWith(`${rows[0]![0]}:`)) return { ...doc, title, trail: origin.trail };
  // one row, as the database's CSV holds it: "Owner: Payments; Tier: 1; …", the row's entry
  const header = rows.map(([k]) => k!);
  const values = rows.map(([, v]) => v!);
  const table: Block = { kind: 'table', text: '', header, rows: [values], entry: { term: title, kind: 'row' } };
  return { ...doc, title, trail: origin.trail, blocks: doc.blocks.map((b) => (b === sheet ? table : b)) };
}

/** A property line as Notion exports one under a database page's title. */
const PROPERTY_LINE = /^([^:]{1,40}):[ \t]+(\S.*)$/;

/** The properties under a page's title (two or more "Name: value" lines before the first blank line), or null. */
function pageProperties(source: string): string[][] | null {
  const lines = source.split(/\r?\n/);
  let i = lines.findIndex((l) => /^#\s/.test(l)) + 1;
  if (i === 0) return null;
  while (i < lines.length && !lines[i]!.trim()) i++;
  const rows: string[][] = [];
  for (; i < lines.length && lines[i]!.trim(); i++) {
    const m = PROPERTY_LINE.exec(lines[i]!.trim());
    if (!m) return null;
    rows.push([m[1]!.trim(), m[2]!.trim()]);
  }
  return rows.length >= 2 ? rows : null;
}

/** Where a citation links: the page in Notion (its id is its address). */
export function notionLink(id: string): string {
  return `https://www.notion.so/${id}`;
}
