import fs from 'node:fs';
import path from 'node:path';
import fg from 'fast-glob';
import type { DocumentKind } from '../store/types.js';
import { exportFiles, type ExportOrigin } from './exports/index.js';

const EXTENSIONS: Record<string, DocumentKind> = {
  '.md': 'markdown',
  '.markdown': 'markdown',
  '.mdx': 'markdown',
  '.adoc': 'asciidoc',
  '.asciidoc': 'asciidoc',
  '.txt': 'text',
  '.text': 'text',
  '.rst': 'text',
  '.html': 'html',
  '.htm': 'html',
  '.pdf': 'pdf',
  '.docx': 'docx',
  '.csv': 'csv',
  '.jsonl': 'jsonl',
};

export interface SourceFile {
  path: string;
  kind: DocumentKind;
  /** A file of a wiki export (a Confluence space, a Notion workspace), read as the page it is. */
  origin?: ExportOrigin;
  /** The name it is stored under, where not its path: "<export.zip>!/<path in the zip>". */
  source?: string;
}

export interface InputFailure {
  file: string;
  line?: number;
  reason: string;
}

export interface ResolvedInputs {
  files: SourceFile[];
  failures: InputFailure[];
  /** Source-key prefixes the inputs cover: what `--prune` may remove when no longer found. */
  roots: string[];
}

const GLOB_CHARS = /[*?[\]{}!]/;

/** Patterns of a folder's `.ragaskignore` (gitignore-like: one glob per line, # comments). */
function ignoreFile(dir: string): string[] {
  const file = path.join(dir, '.ragaskignore');
  if (!fs.existsSync(file)) return [];
  return fs
    .readFileSync(file, 'utf8')
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'))
    .map((l) => (l.startsWith('/') ? l.slice(1) : l.includes('/') ? l : `**/${l}`));
}

/**
 * Expands paths, folders and globs (fast-glob: the standard, fast glob matcher) into files of a
 * supported type. A missing path or unsupported type given by name is a failure for that input only.
 */
export function resolveInputs(
  inputs: readonly string[],
  exclude: readonly string[] = [],
  unzipped: ReadonlyMap<string, string> = new Map(),
): ResolvedInputs {
  const excluded = new Set(exclude.map((e) => path.resolve(e)));
  const files = new Map<string, SourceFile>();
  const failures: InputFailure[] = [];
  const roots: string[] = [];
  const addFile = (abs: string) => {
    if (excluded.has(abs)) return 'excluded';
    const kind = EXTENSIONS[path.extname(abs).toLowerCase()];
    if (kind) files.set(abs, { path: abs, kind });
    return kind;
  };
  for (const input of inputs) {
    if (GLOB_CHARS.test(input) && !fs.existsSync(input)) {
      const matches = fg.sync(input, {
        absolute: true,
        onlyFiles: true,
        dot: false,
        caseSensitiveMatch: false,
        ignore: ['**/node_modules/**'],
      });
      if (matches.length === 0) failures.push({ file: input, reason: 'no file matches this pattern' });
      const before = files.size;
      for (const m of matches) addFile(path.resolve(m));
      if (matches.length > 0 && files.size === before)
        failures.push({
          file: input,
          reason: `no file of a supported type matches (supported: ${Object.keys(EXTENSIONS).join(' ')})`,
        });
      continue;
    }
    const abs = path.resolve(input);
    let stat: fs.Stats;
    try {
      stat = fs.statSync(abs);
    } catch {
      failures.push({ file: input, reason: 'no such file or folder' });
      continue;
    }
    const zip = unzipped.get(abs);
    if (zip) {
      const found = zipFiles(abs, zip, (f) => EXTENSIONS[path.extname(f).toLowerCase()]);
      if ('reason' in found) failures.push({ file: zip, reason: found.reason });
      else {
        roots.push(`${zip}!/`);
        for (const f of found) files.set(f.path, f);
      }
      continue;
    }
    if (stat.isDirectory()) {
      roots.push(abs.endsWith(path.sep) ? abs : abs + path.sep);
      for (const f of folderFiles(abs, excluded)) files.set(f.path, f);
    } else if (stat.isFile()) {
      if (!addFile(abs)) {
        failures.push({
          file: input,
          reason: `unsupported file type "${path.extname(abs) || '(none)'}" (supported: ${Object.keys(EXTENSIONS).join(' ')})`,
        });
        continue;
      }
      roots.push(EXTENSIONS[path.extname(abs).toLowerCase()] === 'jsonl' ? `${abs}#` : abs);
    } else {
      failures.push({ file: input, reason: 'not a regular file or folder' });
    }
  }
  return { files: [...files.values()].sort((a, b) => a.path.localeCompare(b.path)), failures, roots };
}

/** A folder's files of a supported type (a wiki export's as its pages), but those `.ragaskignore` or `excluded` name. */
function folderFiles(dir: string, excluded: ReadonlySet<string>): SourceFile[] {
  const kindOf = (f: string) =>
    excluded.has(path.resolve(dir, f)) ? undefined : EXTENSIONS[path.extname(f).toLowerCase()];
  const exported = exportFiles(dir, kindOf);
  if (exported) return exported;
  return fg
    .sync(`**/*{${Object.keys(EXTENSIONS).join(',')}}`, {
      cwd: dir,
      absolute: true,
      onlyFiles: true,
      dot: false,
      caseSensitiveMatch: false,
      ignore: ['**/node_modules/**', ...ignoreFile(dir)],
    })
    .map((m) => path.resolve(m))
    .filter((m) => !excluded.has(m))
    .flatMap((m) => {
      const kind = EXTENSIONS[path.extname(m).toLowerCase()];
      return kind ? [{ path: m, kind }] : [];
    });
}

/** The documents of an unpacked export zip, stored under the zip's name; a zip of anything else is refused. */
function zipFiles(
  dir: string,
  zip: string,
  kindOf: (f: string) => DocumentKind | undefined,
): SourceFile[] | { reason: string } {
  const exported = exportFiles(dir, kindOf);
  if (!exported)
    return {
      reason:
        'not a Confluence space export or a Notion export (no index.html with Confluence markup, no files named with Notion ids); unzip it and ingest the folder',
    };
  return exported.map((f) => ({ ...f, source: `${zip}!/${path.relative(dir, f.path).split(path.sep).join('/')}` }));
}

export interface JsonlRecord {
  id: string;
  title: string;
  text: string;
  url: string | null;
  line: number;
}

/** Records of a `{id, title, text}` JSON-lines corpus; a bad line is a failure naming its line. */
export function readJsonl(file: string, content: string): { records: JsonlRecord[]; failures: InputFailure[] } {
  const records: JsonlRecord[] = [];
  const failures: InputFailure[] = [];
  const seen = new Set<string>();
  const lines = content.split('\n');
  for (const [i, raw] of lines.entries()) {
    const line = raw.trim();
    if (!line) continue;
    const r = parseRecord(line, i + 1, seen);
    if ('reason' in r) failures.push({ file, line: i + 1, reason: r.reason });
    else {
      seen.add(r.id);
      records.push(r);
    }
  }
  return { records, failures };
}

/** One line of a .jsonl corpus as a record, or why it is not one (`seen`: the ids before it). */
function parseRecord(line: string, lineNo: number, seen: ReadonlySet<string>): JsonlRecord | { reason: string } {
  let obj: unknown;
  try {
    obj = JSON.parse(line);
  } catch (e) {
    return { reason: `not valid JSON (${(e as Error).message.split('\n')[0]})` };
  }
  if (!obj || typeof obj !== 'object' || Array.isArray(obj))
    return { reason: 'not a JSON object; expected {"id", "title", "text"}' };
  const o = obj as Record<string, unknown>;
  const id = typeof o.id === 'string' || typeof o.id === 'number' ? String(o.id) : null;
  if (!id) return { reason: 'missing "id" (string or number)' };
  if (typeof o.text !== 'string' || !o.text.trim())
    return { reason: `record ${JSON.stringify(id)}: missing or empty "text"` };
  if (seen.has(id)) return { reason: `duplicate id ${JSON.stringify(id)} (first one kept)` };
  const title = typeof o.title === 'string' && o.title.trim() ? o.title.trim() : id;
  const url = typeof o.url === 'string' && /^https?:\/\//.test(o.url) ? o.url : null;
  return { id, title, text: o.text, url, line: lineNo };
}
