/** What ingest reads: the units (a file or a .jsonl record) found under the inputs, each read and fingerprinted. */
import type { DocumentKind } from '../store/types.js';
import { type InputFailure, readJsonl, type JsonlRecord, type SourceFile } from './sources.js';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { errorMessage } from '../errors.js';
import type { ParsedDocument } from './blocks.js';
import { parseDocx } from './parsers/docx.js';
import { parseHtml } from './parsers/html.js';
import { parseMarkdown, withHeadingSlugs } from './parsers/markdown.js';
import { parsePdf } from './parsers/pdf.js';
import { parseText } from './parsers/text.js';
import { isRst, parseRst } from './parsers/rst.js';
import { exportLink, parseExported } from './exports/index.js';
import { parseCsv } from './parsers/csv.js';
import { parseAsciidoc } from './parsers/asciidoc.js';
import { repositoryLink } from './repo.js';
import { type IngestDeps, INGEST_VERSION } from './types.js';

/** One document to (re)ingest: a file, or one record of a .jsonl corpus. */
export interface Unit {
  source: string;
  path: string;
  kind: DocumentKind;
  hash: string;
  bytes: number;
  load: () => Promise<ParsedDocument>;
  fallbackTitle: string;
  url: string | null;
  line?: number;
}

export const sha256 = (data: string | Uint8Array) => createHash('sha256').update(data).digest('hex');

function titleFromPath(file: string): string {
  const base = path.basename(file, path.extname(file));
  return base.replace(/[-_]+/g, ' ').replace(/\s+/g, ' ').trim() || base;
}

function decodeText(bytes: Buffer): string {
  const head = bytes.subarray(0, 8192);
  if (head.includes(0)) throw new Error('binary file (contains NUL bytes); expected UTF-8 text');
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new Error('not valid UTF-8 text; convert it to UTF-8 first');
  }
}

/**
 * The link a citation of a file gets: `baseUrl` + its path relative to the input folder it came from
 * (none without a base URL); a page of a Confluence export (or its attachment) links to the page;
 * with a web URL, a file of a git clone links to its hosted view at the checked-out commit.
 */
export function citationLink(
  roots: readonly string[],
  baseUrl: string | null,
  webUrl: string | null = null,
): (f: SourceFile) => string | null {
  const inRepository = webUrl ? repositoryLink(webUrl) : null;
  return ({ path: file, origin }) => {
    if (origin) return exportLink(origin, baseUrl);
    if (inRepository) return inRepository(file);
    if (!baseUrl) return null;
    const root = roots.find((r) => r.endsWith(path.sep) && file.startsWith(r)) ?? path.dirname(file) + path.sep;
    return baseUrl.replace(/\/?$/, '/') + path.relative(root, file).split(path.sep).map(encodeURIComponent).join('/');
  };
}

interface CollectContext {
  deps: IngestDeps;
  fail: (f: InputFailure) => void;
  /** A file with nothing in it: a warning, not a failure. */
  skip: (f: InputFailure) => void;
  linkFor: (f: SourceFile) => string | null;
  /** Markdown headings get the ids GitHub gives them (files cited by a repository's hosted view). */
  slugHeadings: boolean;
}

/**
 * The files as documents to (re)ingest, before anything is parsed (so the progress bar knows its
 * total), and every source they cover. A file refused here keeps whatever was stored for it: a
 * refused file is not a deleted file.
 */
export async function collectUnits(
  files: readonly SourceFile[],
  ctx: CollectContext,
): Promise<{ units: Unit[]; seen: Set<string> }> {
  const { store, config } = ctx.deps;
  const fingerprint = fingerprintOf(config);
  const units: Unit[] = [];
  const seen = new Set<string>();
  const keepStored = async (f: SourceFile) => {
    if (f.kind === 'jsonl') for (const s of await store.documents.sourcesUnder(`${f.path}#`)) seen.add(s.source);
    else seen.add(f.source ?? f.path);
  };
  const refuse = async (f: SourceFile, reason: string) => {
    ctx.fail({ file: f.path, reason });
    await keepStored(f);
  };
  for (const f of files) {
    const read = readSource(f.path, config.maxFileBytes);
    if ('reason' in read) {
      if (read.reason === EMPTY_FILE) {
        ctx.skip({ file: f.path, reason: read.reason });
        await keepStored(f);
      } else await refuse(f, read.reason);
      continue;
    }
    if (f.kind !== 'jsonl') {
      seen.add(f.source ?? f.path);
      units.push(fileUnit(f, read.bytes, read.size, fingerprint, ctx.linkFor(f), ctx.slugHeadings));
      continue;
    }
    let content: string;
    try {
      content = decodeText(read.bytes);
    } catch (e) {
      await refuse(f, errorMessage(e));
      continue;
    }
    const { records, failures } = readJsonl(f.path, content);
    failures.forEach(ctx.fail);
    if (records.length === 0 && failures.length === 0) ctx.fail({ file: f.path, reason: 'no records' });
    for (const r of records) {
      const unit = recordUnit(f.path, r, fingerprint);
      seen.add(unit.source);
      units.push(unit);
    }
    // with a bad line in the file, its record cannot be told apart from a deleted one: prune none of
    // this file's records (nothing stored is lost to a typo)
    if (failures.length || records.length === 0) await keepStored(f);
  }
  return { units, seen };
}

/** Why a file of zero bytes is passed over (a skip, not a failure). */
const EMPTY_FILE = 'empty file: nothing to ingest';

/** A document that parses to no text: passed over with a warning, since there is nothing in it to lose. */
export class EmptyDocument extends Error {}

/** A file's bytes, or why it is refused (gone, too large, empty, unreadable). */
function readSource(file: string, maxBytes: number): { bytes: Buffer; size: number } | { reason: string } {
  let stat: fs.Stats;
  try {
    stat = fs.statSync(file);
  } catch (e) {
    return { reason: errorMessage(e) };
  }
  if (stat.size > maxBytes)
    return {
      reason: `${(stat.size / 1048576).toFixed(1)} MB is over the RAGASK_MAX_FILE_MB limit (${(maxBytes / 1048576).toFixed(1)} MB); raise it or split the file`,
    };
  if (stat.size === 0) return { reason: EMPTY_FILE };
  try {
    return { bytes: fs.readFileSync(file), size: stat.size };
  } catch (e) {
    return { reason: `cannot read it (${errorMessage(e)})` };
  }
}

/** One record of a .jsonl corpus as a document. */
function recordUnit(file: string, r: JsonlRecord, fingerprint: string): Unit {
  return {
    source: `${file}#${r.id}`,
    path: file,
    kind: 'jsonl',
    hash: sha256(JSON.stringify([r.title, r.text, r.url, fingerprint])),
    bytes: Buffer.byteLength(r.text),
    fallbackTitle: r.title,
    url: r.url,
    line: r.line,
    load: async () => ({ title: r.title, url: r.url, blocks: parseText(r.text).blocks }),
  };
}

/** A document file, parsed by its kind when it is loaded. */
function fileUnit(
  f: SourceFile,
  bytes: Buffer,
  size: number,
  fingerprint: string,
  url: string | null,
  slugHeadings: boolean,
): Unit {
  const kind = f.kind;
  return {
    source: f.source ?? f.path,
    path: f.path,
    kind,
    hash: sha256(`${sha256(bytes)}\u0000${fingerprint}\u0000${url ?? ''}`),
    bytes: size,
    fallbackTitle: titleFromPath(f.path),
    url,
    load: async () => {
      const parse = async () => {
        const doc = await parseFile(kind, bytes);
        return slugHeadings && kind === 'markdown' ? withHeadingSlugs(doc) : doc;
      };
      if (!f.origin) return parse();
      const text = kind === 'html' || kind === 'markdown' ? () => decodeText(bytes) : null;
      return parseExported(f.path, f.origin, text, parse);
    },
  };
}

/** A file's bytes parsed by its kind. */
async function parseFile(kind: DocumentKind, bytes: Buffer): Promise<ParsedDocument> {
  if (kind === 'docx') return parseDocx(new Uint8Array(bytes));
  if (kind === 'pdf') {
    if (bytes.subarray(0, 1024).indexOf('%PDF-') < 0) throw new Error('not a PDF (no %PDF- header)');
    try {
      return await parsePdf(new Uint8Array(bytes));
    } catch (e) {
      throw new Error(`corrupt or truncated PDF (${errorMessage(e)})`);
    }
  }
  const text = decodeText(bytes);
  if (kind === 'csv') return parseCsv(text);
  if (kind === 'asciidoc') return parseAsciidoc(text);
  if (kind === 'markdown') return parseMarkdown(text);
  if (kind === 'html') return parseHtml(text);
  // reStructuredText is stored as text: a .rst file, or a .txt file written in it (lighttpd's manuals)
  return isRst(text) ? parseRst(text) : parseText(text);
}

/** What a document becomes depends on these too: a change of any re-ingests it. */
export function fingerprintOf(config: IngestDeps['config']): string {
  return JSON.stringify([INGEST_VERSION, config.windowTokens, config.windowOverlap, config.chunkMaxTokens]);
}
