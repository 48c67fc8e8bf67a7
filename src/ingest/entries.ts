/**
 * Entries: what a manual or a handbook is made of. A term (a parameter, an option, a command, a
 * function, a field, a named row) with its description and the values it states. The parsers find
 * them in the markup (a term list, a manual page's name line, a bolded lead, a table's first column);
 * these helpers name them the same way for every format.
 */
import type { Entry, EntryKind } from '../store/types.js';

/** A term longer than this is a sentence or a question (a FAQ's `<dt>`), not a name. */
const TERM_MAX_WORDS = 8;
/** A named row's name, at most: a longer first cell is prose. */
const ROW_NAME_MAX_WORDS = 6;
/** Characters a term may hold beyond letters and digits: identifiers, options, paths, keys. */
const TERM_CHARS = /^[\p{L}\p{N}_.:/$@%+*=#<>[\]-]+$/u;
/** A call signature: the name before its argument list ("abs(X)", "os.replace(src, dst)"). */
const SIGNATURE = /^([\p{L}_$][\p{L}\p{N}_.:$-]*)\s*\(/u;
/** A manual page's name line: names, a dash, what they do ("git-add - Add file contents to the index"). */
const NAME_LINE = /^([\p{L}\p{N}_.+-]+(?:\s*,\s*[\p{L}\p{N}_.+-]+)*)\s+[-\u2013\u2014]\s+(\S.*)$/u;

const wordsOf = (s: string) => s.split(/\s+/).filter(Boolean);

/**
 * The name a term entry goes by: a signature's function name, an option list as written
 * ("-n, --dry-run"), otherwise the term itself; null when the "term" is a sentence.
 */
function termName(text: string): string | null {
  const t = text.trim().replace(/[:\s]+$/, '');
  if (!t) return null;
  const sig = SIGNATURE.exec(t);
  if (sig) return sig[1]!;
  if (wordsOf(t).length > TERM_MAX_WORDS) return null;
  // a question or a sentence in a term list is a heading, not a name
  if (/[?!]$/.test(t) || /\.\s/.test(t)) return null;
  return t;
}

/** Whether a name is an option (it starts with a dash) or a term. */
function termKind(name: string): EntryKind {
  return /^--?[\p{L}\p{N}]/u.test(name) ? 'option' : 'term';
}

/** An option's flags without their arguments ("-c fmt, --format=fmt" → "-c, --format"). */
function optionName(name: string): string {
  const flags = name
    .split(/[\s,]+/)
    .filter((w) => /^--?[\p{L}\p{N}]/u.test(w))
    .map((w) => w.replace(/[=[].*$/, ''));
  return flags.join(', ') || name;
}

/** The entry a term-list item opens, or null when its term is not a name. */
export function termEntry(text: string): Entry | null {
  const name = termName(text);
  if (!name) return null;
  const kind = termKind(name);
  return { term: kind === 'option' ? optionName(name) : name, kind };
}

/** A manual page's name line as a command entry and its description, or null. */
export function nameLine(text: string): { entry: Entry; description: string } | null {
  const m = NAME_LINE.exec(text.trim());
  if (!m) return null;
  const first = m[1]!.split(',')[0]!.trim();
  if (!TERM_CHARS.test(first)) return null;
  return { entry: { term: first, kind: 'command' }, description: m[2]!.trim() };
}

/**
 * A bolded or dashed lead of a list item or paragraph ("**Leave**: …", "Leave — …"): the field it
 * describes, when the lead is a short name.
 */
export function fieldEntry(lead: string): Entry | null {
  // emphasis marks left at the edges of a lead ("*Note:") are not part of its name
  const t = lead
    .trim()
    .replace(/[:\s*_]+$/, '')
    .replace(/^[*_\s]+/, '');
  if (!t || wordsOf(t).length > ROW_NAME_MAX_WORDS || /[.?!]$/.test(t)) return null;
  return { term: t, kind: 'field' };
}

/** A number, a date, a size: a cell that values a row, not one that names it. */
const VALUE_CELL = /^[\s\d.,:;%+\-\u2212/()x×*]+[\p{L}]{0,3}$/u;

/**
 * Whether a table's rows are named by their first cell (a setting, a limit, a command): its first
 * column holds short, distinct names rather than numbers or prose.
 */
export function rowsAreNamed(rows: readonly (readonly string[])[], headed: boolean): boolean {
  const names = rows.map((r) => (r[0] ?? '').trim()).filter(Boolean);
  // without a header, rows of two cells are a key and its value; three or more name a thing and
  // state its properties (Exim's log selectors: "acl_warn_skipped | * | skipped warn statement")
  const least = headed ? 2 : 3;
  if (names.length < 2 || rows.some((r) => r.length < least)) return false;
  if (new Set(names).size < names.length) return false;
  return names.every((n) => wordsOf(n).length <= ROW_NAME_MAX_WORDS && !VALUE_CELL.test(n));
}

/** The entry a named row opens. */
export function rowEntry(row: readonly string[]): Entry | null {
  const name = termName(row[0] ?? '');
  return name ? { term: name, kind: 'row' } : null;
}
