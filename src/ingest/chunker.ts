import { sentencesOf } from '../models/nlp.js';
import type { Entry } from '../store/types.js';
import type { Block } from './blocks.js';
import { nameLine, rowEntry, rowsAreNamed, termEntry } from './entries.js';

export interface ChunkDraft {
  kind: string;
  headingPath: string[];
  page: number | null;
  text: string;
  /** The entry the chunk belongs to (a term's description, a named row, a command's name line). */
  entry: Entry | null;
  /** The id of the nearest heading above it that has one, in the page as hosted (a link to its section). */
  anchor?: string | null;
  /** A field of its entry the page gives every such entry ("Blocks: topmost"; Block.field). */
  field?: boolean;
}

/** A heading as the entry a key/value table under it describes, when it is a name rather than a sentence. */
function sectionEntry(heading: string | undefined): Entry | null {
  const entry = heading ? termEntry(heading) : null;
  return entry && entry.term.split(/\s+/).length <= SECTION_TERM_WORDS ? entry : null;
}
/** A heading of more words than this is a title ("Configuring the cache for large files"), not a name. */
const SECTION_TERM_WORDS = 3;

/** The heading of a manual page's name line (man, mandoc and asciidoc pages all write it). */
const NAME_SECTION = /^name$/i;

/**
 * A command's name line as an entry: the paragraph under a manual page's NAME heading, or a page
 * headed by one ("htpasswd - Manage user files for basic authentication").
 */
function commandEntry(b: Block, previous: Block | undefined): Entry | null {
  const underName = b.kind === 'paragraph' && previous?.kind === 'heading' && NAME_SECTION.test(previous.text.trim());
  const headedBy = b.kind === 'heading' && b.level === 1;
  return underName || headedBy ? (nameLine(b.text)?.entry ?? null) : null;
}

/** A one-row table whose header recurs this often in a document is a reference page's property sheet. */
const SHEET_REPEATS = 3;

/** The header of a one-row table, as a key: the schema a reference page repeats under each of its entries. */
const sheetKey = (b: Block) =>
  b.kind === 'table' && (b.rows ?? []).length === 1 && (b.header ?? []).some((h) => h.trim())
    ? (b.header ?? []).map((h) => h.trim().toLowerCase()).join('\u0000')
    : null;

/** Headers of one-row tables that recur SHEET_REPEATS times or more in the document. */
function repeatedSheets(blocks: readonly Block[]): Set<string> {
  const counts = new Map<string, number>();
  for (const b of blocks) {
    const key = sheetKey(b);
    if (key) counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return new Set([...counts].filter(([, n]) => n >= SHEET_REPEATS).map(([key]) => key));
}

/**
 * The entry a table makes of the section it stands in, when the table is the section's property
 * sheet: a key/value table ("Default: KeepAliveTimeout 5") under a short name (its rows only), or
 * one row under a header that the document repeats under each of its entries (rsyslog's "type,
 * default, mandatory" under each parameter): then the section's description is that entry's too.
 */
function sheetEntry(
  b: Block,
  heading: string,
  sheets: ReadonlySet<string>,
): { entry: Entry; kind: 'key-value' | 'sheet' } | null {
  const rows = b.rows ?? [];
  const named = (b.header ?? []).some((h) => h.trim());
  const key = sheetKey(b);
  const kind = !named && rows.every((r) => r.length === 2) ? 'key-value' : key && sheets.has(key) ? 'sheet' : null;
  const entry = kind ? sectionEntry(heading) : null;
  return kind && entry ? { entry, kind } : null;
}

/** A cell that states one property: "Type: integer", "Default: unset". */
const PROPERTY_CELL = /^\p{L}[\p{L} ]{0,20}:\s*\S/u;

/**
 * A headerless one-row table that names its subject in its first cell and states a property in each
 * other one (DocBook's option synopsis: "smtp_accept_max | Use: main | Type: integer | Default: 20"):
 * the entry of what follows it, to the next such table or heading, as a term list's term is.
 */
function synopsisEntry(b: Block): Entry | null {
  const rows = b.rows ?? [];
  if ((b.header ?? []).some((h) => h.trim()) || rows.length !== 1 || rows[0]!.length < 3) return null;
  const [name, ...rest] = rows[0]!.map((c) => c.trim());
  if (!name || /\s/.test(name) || !rest.every((c) => PROPERTY_CELL.test(c))) return null;
  return termEntry(name);
}

export interface ChunkOptions {
  maxTokens: number;
  /** Chunks shorter than this merge with a neighbour of the same section ("Note:" alone says nothing). */
  minTokens?: number;
  countTokens: (text: string) => number;
  title?: string | null;
}

/**
 * Semantic chunking: a chunk is one paragraph, one list item, one table row (with its header) or one
 * code block, under its heading path, so that it holds one claim or one section. Paragraphs longer
 * than maxTokens are split at sentence boundaries; tiny ones merge with a neighbour.
 */
export function chunkBlocks(blocks: readonly Block[], opts: ChunkOptions): ChunkDraft[] {
  const min = opts.minTokens ?? 6;
  // a heading's entry, once a property sheet under it shows the section describes one thing (sheetEntry)
  const stack: { level: number; text: string; anchor?: string; entry?: Entry }[] = [];
  const drafts: ChunkDraft[] = [];
  // an empty title names nothing
  const titleKey = opts.title?.trim().toLowerCase() || null;
  const path = () => {
    const p = stack.map((h) => h.text);
    // The top heading usually repeats the title ("Vantor TS-40" under "Vantor TS-40 Datasheet").
    return p.length && titleKey?.includes(p[0]!.toLowerCase()) ? p.slice(1) : p;
  };
  const anchor = () => stack.findLast((h) => h.anchor)?.anchor ?? null;
  const sheets = repeatedSheets(blocks);
  // the entry an option's synopsis opened, closed by the next heading (synopsisEntry)
  let opened: Entry | null = null;
  const described = () => opened ?? stack.findLast((h) => h.entry)?.entry ?? null;
  let previous: Block | undefined;
  for (const b of blocks) {
    const before = drafts.length;
    draftsOf(b);
    for (const d of drafts.slice(before)) if (d.kind !== 'footer') d.anchor = anchor();
  }
  return mergeTiny(drafts, min, opts);

  function draftsOf(b: Block): void {
    const page = b.page ?? null;
    const command = commandEntry(b, previous);
    previous = b;
    switch (b.kind) {
      case 'heading': {
        opened = null;
        const level = b.level ?? 1;
        while (stack.length && stack[stack.length - 1]!.level >= level) stack.pop();
        stack.push({ level, text: b.text, ...(b.anchor ? { anchor: b.anchor } : {}) });
        // a page headed by a command's name line says what the command does: that line is read too
        if (command) drafts.push({ kind: 'paragraph', headingPath: path(), page, text: b.text, entry: command });
        break;
      }
      case 'section_end': {
        opened = null;
        const level = b.level ?? 1;
        while (stack.length && stack[stack.length - 1]!.level >= level) stack.pop();
        break;
      }
      case 'table': {
        const header = b.header ?? [];
        const named = header.some((h) => h.trim());
        const rowsNamed = rowsAreNamed(b.rows ?? [], named);
        // a key/value table (a directive's synopsis: "Default: KeepAliveTimeout 5") describes what its section is headed by
        const top = stack[stack.length - 1];
        const sheet = top ? sheetEntry(b, top.text, sheets) : null;
        // a property sheet repeated under each entry makes its section that entry, description and all
        if (top && sheet?.kind === 'sheet') top.entry = sheet.entry;
        const synopsis = synopsisEntry(b);
        if (synopsis) opened = synopsis;
        const section = sheet?.entry ?? synopsis;
        for (const row of b.rows ?? []) {
          const entry = (rowsNamed ? rowEntry(row) : null) ?? b.entry ?? section;
          const text = named
            ? row.map((cell, k) => `${header[k] || `column ${k + 1}`}: ${cell || '—'}`).join('; ')
            : row.length === 2
              ? `${row[0]}: ${row[1]}`
              : row.join(' | ');
          if (text.replace(/[—;:|\s]/g, '')) drafts.push({ kind: 'table_row', headingPath: path(), page, text, entry });
        }
        break;
      }
      case 'footer':
        drafts.push({ kind: 'footer', headingPath: ['Page footer'], page, text: b.text, entry: null });
        break;
      default: {
        const entry = command ?? b.entry ?? described();
        const field = b.field ? { field: true } : {};
        for (const text of splitLong(b.text, opts))
          drafts.push({ kind: b.kind, headingPath: path(), page, text, entry, ...field });
      }
    }
  }
}

function splitLong(text: string, opts: ChunkOptions): string[] {
  if (opts.countTokens(text) <= opts.maxTokens) return [text];
  const out: string[] = [];
  let current = '';
  let currentTokens = 0;
  for (const s of sentencesOf(text)) {
    const n = opts.countTokens(s.text);
    if (n > opts.maxTokens) {
      if (current) out.push(current);
      out.push(...splitWords(s.text, opts));
      current = '';
      currentTokens = 0;
    } else if (currentTokens + n > opts.maxTokens && current) {
      out.push(current);
      current = s.text;
      currentTokens = n;
    } else {
      current = current ? `${current} ${s.text}` : s.text;
      currentTokens += n;
    }
  }
  if (current) out.push(current);
  return out;
}

/** A sentence longer than a chunk (a log line, a table flattened to text): cut between words. */
function splitWords(text: string, opts: ChunkOptions): string[] {
  const out: string[] = [];
  let current: string[] = [];
  let n = 0;
  for (const w of text.split(/\s+/)) {
    const k = opts.countTokens(w);
    if (n + k > opts.maxTokens && current.length) {
      out.push(current.join(' '));
      current = [];
      n = 0;
    }
    current.push(w);
    n += k;
  }
  if (current.length) out.push(current.join(' '));
  return out;
}

function mergeTiny(drafts: ChunkDraft[], min: number, opts: ChunkOptions): ChunkDraft[] {
  const out: ChunkDraft[] = [];
  const sameSection = (a: ChunkDraft, b: ChunkDraft) =>
    a.headingPath.join('\u0000') === b.headingPath.join('\u0000') &&
    a.page === b.page &&
    a.entry?.term === b.entry?.term;
  const mergeable = (k: string) => k === 'paragraph' || k === 'list_item' || k === 'quote';
  for (let i = 0; i < drafts.length; i++) {
    const d = drafts[i]!;
    const next = drafts[i + 1];
    // a field of its entry ("Blocks: topmost") says something alone: it joins only the fields after it
    const field = d.field === true;
    if (
      mergeable(d.kind) &&
      opts.countTokens(d.text) < min &&
      next &&
      mergeable(next.kind) &&
      sameSection(d, next) &&
      (!field || next.field === true) &&
      opts.countTokens(d.text) + opts.countTokens(next.text) <= opts.maxTokens
    ) {
      const joiner = (field || d.kind === 'list_item') && !/[.;:!?]$/.test(d.text) ? '; ' : ' ';
      drafts[i + 1] = { ...next, text: `${d.text}${joiner}${next.text}` };
      continue;
    }
    out.push(d);
  }
  return out;
}
