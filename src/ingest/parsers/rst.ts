import { cleanText, type Block, type ParsedDocument } from '../blocks.js';
import type { Entry } from '../../store/types.js';
import { termEntry } from '../entries.js';
import { indentOf, isWrappedProse } from './pre-prose.js';
import { dehyphenate } from './text.js';

/**
 * reStructuredText, as Sphinx sources and older manuals write it (lighttpd's module pages are .txt
 * files in it): section titles under (and over) lines of punctuation, definition lists (a term, its
 * description indented under it) read as term entries, literal blocks after "::" as code, simple
 * tables as tables, field lists and admonitions as paragraphs; directives that are not text
 * (meta, contents, image) and comments left out. Written here, not taken from npm: the one JS
 * reader there (`restructured` 0.0.11, unmaintained since 2017) read lighttpd's definition lists as
 * "unknown" nodes.
 */

type Push = (b: Block) => void;

/** A line of one punctuation character, three or more: a section title's underline or overline. */
const ADORNMENT = /^([=\-~^"'`#*+:.<>_])\1{2,}\s*$/;
/** A simple table's border: columns of "=" separated by spaces. */
const TABLE_BORDER = /^=+( +=+)+\s*$/;
/** An explicit markup line: a directive, a comment, a target or a footnote. */
const EXPLICIT = /^\.\.(\s|$)/;
const DIRECTIVE = /^\.\.\s+([\w:-]+)::\s*(.*)$/;
/** Directives whose content is not the page's text. */
const NOT_TEXT = new Set(['meta', 'contents', 'image', 'figure', 'raw', 'include', 'toctree', 'index', 'highlight']);
const CODE_DIRECTIVES = new Set(['code', 'code-block', 'sourcecode', 'literalinclude']);
/** What a configuration or code line holds and a sentence seldom does. */
const CODE_CHARS = /[{}=<>|$]/;
const FIELD = /^:([^:]+):(?:\s+(.*))?$/;
/** A field whose value is a version-control keyword ("$Date: 2004/11/03 $") says nothing about the subject. */
const RCS_VALUE = /^\$\w+:.*\$$/;
const BULLET = /^([-*+•]|\d+[.)]|#\.)\s+/;
/** A term is a short line: longer, it is a sentence whose next line happens to be indented. */
const TERM_MAX_WORDS = 8;
/** Term entries are headings below every section title (as the HTML reader's terms are). */
const TERM_LEVEL = 7;

/** Whether a plain-text file is written in reStructuredText: a directive, or a title over- and underlined. */
export function isRst(source: string): boolean {
  const lines = source.split(/\r?\n/, 400);
  if (lines.some((l) => DIRECTIVE.test(l))) return true;
  return lines.some((l, i) => ADORNMENT.test(l) && lines[i + 2] === l && !!lines[i + 1]?.trim());
}

/** Inline markup as the text it shows: ``literal``, *emphasis*, `a link <url>`_, a reference_. */
function inline(text: string): string {
  return cleanText(
    dehyphenate(text)
      .replace(/`([^`<]+?)\s*<[^>]+>`_{1,2}/g, '$1')
      .replace(/``(.+?)``/g, '$1')
      .replace(/:[\w-]+:`([^`]+)`/g, '$1')
      .replace(/`([^`]+)`_{0,2}/g, '$1')
      .replace(/\*\*(\S.*?)\*\*/g, '$1')
      .replace(/(^|[\s(])\*(?!\s)([^*]+?)(?<!\s)\*(?=$|[\s.,;:!?)])/g, '$1$2')
      .replace(/([A-Za-z0-9])_(?=$|[\s.,;:!?)])/g, '$1'),
  );
}

/** A paragraph's closing "::" as reStructuredText shows it: "Example::" → "Example:", "e.g.: ::" → "e.g.:", "::" alone → nothing. */
const withoutLiteralMarker = (text: string): string =>
  /\S::\s*$/.test(text) ? text.replace(/::\s*$/, ':') : text.replace(/\s*::\s*$/, '');

const dedent = (lines: readonly string[]): string[] => {
  const filled = lines.filter((l) => l.trim());
  const by = filled.length ? Math.min(...filled.map(indentOf)) : 0;
  return lines.map((l) => l.slice(Math.min(by, indentOf(l))));
};

/** The end of the block indented deeper than `indent` that starts at line `from` (blank lines inside it). */
function indentedEnd(lines: readonly string[], from: number, indent: number): number {
  let j = from;
  let last = from;
  while (j < lines.length && (!lines[j]!.trim() || indentOf(lines[j]!) > indent)) {
    if (lines[j]!.trim()) last = j + 1;
    j++;
  }
  return last;
}

class RstReader {
  readonly blocks: Block[] = [];
  title: string | null = null;
  /** Adornment styles in the order they first appear: a style's place is its section level. */
  private readonly styles: string[] = [];

  constructor(private readonly lines: readonly string[]) {}

  read(): void {
    this.body(this.lines, null);
  }

  /**
   * Blocks of `lines` (dedented to their own margin), each in `entry` where one is given, the first
   * paragraph opened by `lead` (a description opened by its term, as the manual-page reader does).
   */
  private body(lines: readonly string[], entry: Entry | null, lead: string | null = null): void {
    const push: Push = (b) => {
      if (lead && b.kind === 'paragraph') {
        b.text = `${lead}: ${b.text}`;
        lead = null;
      }
      this.blocks.push(entry ? { ...b, entry } : b);
    };
    let i = 0;
    while (i < lines.length) {
      if (!lines[i]!.trim()) i++;
      else i = this.element(lines, i, push, entry);
    }
  }

  /** Reads the element at line `i`, hands its blocks to `push`, and returns the line after it. */
  private element(lines: readonly string[], i: number, push: Push, entry: Entry | null, level = 1): number {
    const line = lines[i]!;
    const next = lines[i + 1] ?? '';
    // sections stand at the page's margin, never inside a description
    const title = entry ? null : this.sectionTitle(lines, i);
    if (title) return title;
    if (EXPLICIT.test(line)) return this.explicit(lines, i, push);
    if (TABLE_BORDER.test(line)) return this.simpleTable(lines, i, push);
    const field = FIELD.exec(line.trim());
    if (field && indentOf(line) === 0) return this.field(lines, i, field, push);
    if (indentOf(line) > 0) {
      // a block quote: read at its own margin
      const end = indentedEnd(lines, i, 0);
      const inner = dedent(lines.slice(i, end));
      // an example indented without its "::" is still code, not a quotation
      if (!isWrappedProse(inner) && CODE_CHARS.test(inner.join('\n'))) {
        push({ kind: 'code', text: inner.join('\n').trim() });
        return end;
      }
      for (let k = 0; k < inner.length;) k = inner[k]!.trim() ? this.element(inner, k, push, entry) : k + 1;
      return end;
    }
    if (BULLET.test(line)) return this.listItem(lines, i, push, entry, level);
    const isTerm =
      next.trim() &&
      indentOf(next) > 0 &&
      !line.trimEnd().endsWith('::') &&
      line.trim().split(/\s+/).length <= TERM_MAX_WORDS;
    if (isTerm) return this.definition(lines, i);
    return this.paragraph(lines, i, push);
  }

  /** A section title at line `i` (under a line, or over and under one): its heading, and the line after it. */
  private sectionTitle(lines: readonly string[], i: number): number | null {
    const [a, b, c] = [lines[i]!, lines[i + 1] ?? '', lines[i + 2] ?? ''];
    let text: string;
    let style: string;
    let end: number;
    if (ADORNMENT.test(a) && c.trimEnd() === a.trimEnd() && b.trim()) [text, style, end] = [b, `over${a[0]}`, i + 3];
    else if (
      !ADORNMENT.test(a) &&
      ADORNMENT.test(b) &&
      indentOf(a) === 0 &&
      b.trim().length >= Math.min(3, a.trim().length)
    )
      [text, style, end] = [a, b[0]!, i + 2];
    else return null;
    if (!this.styles.includes(style)) this.styles.push(style);
    const heading = inline(text);
    this.title ??= heading;
    this.blocks.push({
      kind: 'heading',
      text: heading,
      level: Math.min(this.styles.indexOf(style) + 1, TERM_LEVEL - 1),
    });
    return end;
  }

  /**
   * A term and its description: a heading of its own, the description's blocks in its entry. The term
   * is the line itself, or a field's name (":proxy.debug:" over its description, as lighttpd writes options).
   */
  private definition(lines: readonly string[], i: number, named?: string): number {
    const end = indentedEnd(lines, i + 1, indentOf(lines[i]!));
    const term = inline(named ?? lines[i]!.replace(/\s+:\s+.*$/, ''));
    const entry = termEntry(term);
    this.blocks.push({ kind: 'heading', text: term, level: TERM_LEVEL });
    this.body(dedent(lines.slice(i + 1, end)), entry, term);
    this.blocks.push({ kind: 'section_end', text: '', level: TERM_LEVEL });
    return end;
  }

  /** A paragraph: its lines to the next blank one; one that ends with "::" introduces the literal block after it. */
  private paragraph(lines: readonly string[], i: number, push: Push): number {
    let j = i;
    while (j < lines.length && lines[j]!.trim() && !(j > i && indentOf(lines[j]!) > indentOf(lines[i]!))) j++;
    const text = lines.slice(i, j).join('\n');
    const literal = /::\s*$/.test(text);
    const shown = inline(literal ? withoutLiteralMarker(text) : text);
    if (shown) push({ kind: 'paragraph', text: shown });
    return literal ? this.literal(lines, j, push) : j;
  }

  /** The literal block after "::": the indented lines that follow, kept as code. */
  private literal(lines: readonly string[], i: number, push: Push): number {
    let k = i;
    while (k < lines.length && !lines[k]!.trim()) k++;
    if (k >= lines.length || indentOf(lines[k]!) === 0) return k;
    const end = indentedEnd(lines, k, 0);
    push({ kind: 'code', text: dedent(lines.slice(k, end)).join('\n').trimEnd() });
    return end;
  }

  /** A list item: its own lines to a blank line or a nested item; what is nested in it read one level deeper. */
  private listItem(lines: readonly string[], i: number, push: Push, entry: Entry | null, level: number): number {
    const marker = BULLET.exec(lines[i]!)![0]!;
    const end = indentedEnd(lines, i + 1, 0);
    const body = [lines[i]!.slice(marker.length), ...dedent(lines.slice(i + 1, end))];
    let k = 1;
    while (k < body.length && body[k]!.trim() && !BULLET.test(body[k]!)) k++;
    const own = body.slice(0, k).join('\n');
    const literal = /::\s*$/.test(own);
    push({ kind: 'list_item', text: inline(literal ? withoutLiteralMarker(own) : own), level });
    // an item ending with "::" introduces the example nested under it
    const example = literal ? body.slice(k).join('\n').trim() : '';
    if (example) {
      push({ kind: 'code', text: example });
      return end;
    }
    for (let j = k; j < body.length;) j = body[j]!.trim() ? this.element(body, j, push, entry, level + 1) : j + 1;
    return end;
  }

  /**
   * A field: with its value on the lines under it, a term and its description; with its value on
   * its own line (":Author: …"), a paragraph "name: value", unless the value is a version keyword.
   */
  private field(lines: readonly string[], i: number, m: RegExpExecArray, push: Push): number {
    if (!m[2]?.trim() && indentOf(lines[i + 1] ?? '') > 0) return this.definition(lines, i, m[1]!.trim());
    const end = indentedEnd(lines, i + 1, 0);
    const value = [m[2] ?? '', ...lines.slice(i + 1, end)].join('\n').trim();
    if (value && !RCS_VALUE.test(value)) push({ kind: 'paragraph', text: `${m[1]!.trim()}: ${inline(value)}` });
    return end;
  }

  /** A directive, a comment or a target: text directives read (an admonition's words, a code block), the rest left out. */
  private explicit(lines: readonly string[], i: number, push: Push): number {
    const end = indentedEnd(lines, i + 1, 0);
    const d = DIRECTIVE.exec(lines[i]!);
    if (!d || NOT_TEXT.has(d[1]!)) return end;
    // a directive's options (":keywords: …") are not its text
    const body = dedent(lines.slice(i + 1, end)).filter((l) => !(l.startsWith(':') && FIELD.test(l)));
    if (CODE_DIRECTIVES.has(d[1]!)) {
      const code = body.join('\n').trim();
      if (code) push({ kind: 'code', text: code });
      return end;
    }
    const text = inline([d[2] ?? '', ...body].join('\n'));
    if (text) push({ kind: 'paragraph', text });
    return end;
  }

  /** A simple table ("=== ===" borders): the first row its header where a second border follows it. */
  private simpleTable(lines: readonly string[], i: number, push: Push): number {
    const border = lines[i]!;
    // each column starts where its run of "=" does; the last runs to the end of the line
    const starts = [...border.matchAll(/=+/g)].map((m) => m.index!);
    const rows: string[][] = [];
    let header: string[] | undefined;
    let j = i + 1;
    for (; j < lines.length; j++) {
      const l = lines[j]!;
      if (TABLE_BORDER.test(l)) {
        if (!header && rows.length === 1 && lines[j + 1]?.trim()) header = rows.pop();
        else if (!lines[j + 1]?.trim() || j + 1 >= lines.length) break;
        continue;
      }
      // a table ends at its bottom border; a blank line not followed by one ends a malformed one
      if (!l.trim()) {
        if (TABLE_BORDER.test(lines[j + 1] ?? '') || !lines[j + 1]?.trim()) continue;
        break;
      }
      const cells = starts.map((a, k) => l.slice(a, starts[k + 1]).trim());
      if (!cells[0] && rows.length)
        rows[rows.length - 1] = rows[rows.length - 1]!.map((c, k) => `${c} ${cells[k]}`.trim());
      else rows.push(cells);
    }
    const cells = (r: string[]) => r.map(inline);
    push({ kind: 'table', text: '', ...(header ? { header: cells(header) } : {}), rows: rows.map(cells) });
    return j + 1;
  }
}

/** A reStructuredText document as blocks; its title is the first section title. */
export function parseRst(source: string): ParsedDocument {
  const reader = new RstReader(source.replace(/^\uFEFF/, '').split(/\r?\n/));
  reader.read();
  return { title: reader.title, url: null, blocks: reader.blocks };
}
