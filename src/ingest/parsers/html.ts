import { HTMLElement, NodeType, parse, type Node } from 'node-html-parser';
import { parse as parseSpec, serialize } from 'parse5';
import { headingAnchor } from './html-anchor.js';
import {
  BLOCK_CONTAINERS,
  BOLD,
  CODE_INLINE,
  HEADING,
  LISTS,
  inlineText,
  isBlockTag,
  isSkipped,
  preText,
  tagOf,
} from './html-dom.js';
import { isLayoutTable, tableBlock } from './html-table.js';
import { BlockWriter } from './html-writer.js';
import { boldLead, repeatedLabels } from './html-lead.js';
import { unwrapProse } from './pre-prose.js';
import { isManPageText, manPageBlocks } from './man-text.js';
import type { Entry } from '../../store/types.js';
import { cleanText, type ParsedDocument } from '../blocks.js';
import { fieldEntry, termEntry } from '../entries.js';

/**
 * HTML to blocks straight from the DOM (node-html-parser: fast, lenient with real-world markup, decodes
 * entities). There is no Markdown step: node-html-markdown glued words at line breaks between inline
 * tags ("served by <span>Apache</span>\nmodules" → "Apachemodules"), turned a `# comment` after a <br>
 * in a config example into a heading and left links inside code as Markdown. Here white space is
 * rendered as a browser renders it, and the structure the chunker needs is read from the elements:
 * headings, paragraphs, list items, tables, preformatted code, and term lists.
 */

/**
 * Term entries (`<dt>`) become headings deeper than any HTML heading, so that the description of a
 * setting is chunked and cited under its name ("gc.auto", "KeepAliveTimeout"); the end of the list
 * closes them again, so the text after it is not filed under its last term.
 */
const TERM_LEVEL = 7;
/** XHTML 2's `<h>` says no level: it heads the section it opens, below any numbered heading. */
const UNNUMBERED_HEADING_LEVEL = 6;
/**
 * A term of at most this many words also opens its description's text ("TCP_NODELAY: If set, disable
 * the Nagle algorithm."): a question that asks which setting does something is answered by the term,
 * and the reader reads text, not headings. A longer "term" is a question or a sentence (a FAQ's
 * `<dt>`): it stays a heading only.
 */
const TERM_LEAD_WORDS = 12;

/**
 * A term on a line of its own, led by its name in bold, with its description in the `<pre>` right
 * after it (haproxy-dconv's manuals: `<div class="keyword"><b>nbthread</b> &lt;number&gt;</div><pre>This
 * setting is …</pre>`): read as a term list's item is. Two such lines over one `<pre>` are two names
 * of one description ("tune.rcvbuf.client", "tune.rcvbuf.server").
 */
function describedByPre(div: HTMLElement): boolean {
  if (!isTermLine(div)) return false;
  const siblings = div.parentNode?.childNodes ?? [];
  let k = siblings.indexOf(div) + 1;
  // white space, the empty anchors a page's links point to, and the description's other names
  const passed = (n: Node) =>
    n instanceof HTMLElement ? isSkipped(n) || (tagOf(n) === 'a' && !n.text.trim()) || isTermLine(n) : !n.text.trim();
  while (k < siblings.length && passed(siblings[k]!)) k++;
  return tagOf(siblings[k] ?? div) === 'pre';
}

/** A `<div>` of inline text led by a name in bold; a bold label ("See also:", "Arguments :") ends with its colon. */
function isTermLine(n: Node, tag = 'div'): boolean {
  if (!(n instanceof HTMLElement) || tagOf(n) !== tag) return false;
  const kids = n.childNodes.filter((c) => (c instanceof HTMLElement ? !isSkipped(c) : c.text.trim()));
  if (!kids.length || !BOLD.has(tagOf(kids[0]!)) || kids.some((c) => isBlockTag(tagOf(c)))) return false;
  const line = inlineText(n);
  return !/:$/.test(inlineText(kids[0]!)) && !/:$/.test(line) && termEntry(line) !== null;
}

/** A code element written across lines with <br> (Apache's examples): a code block, not a sentence. */
const isMultilineCode = (el: HTMLElement) => CODE_INLINE.has(tagOf(el)) && el.querySelector('br') !== null;

/** Where the walk stands: how deep in lists and term descriptions, and whether inside a quote. */
interface WalkContext {
  listDepth: number;
  termDepth: number;
  quote: boolean;
}

function walk(node: Node, w: BlockWriter, ctx: WalkContext): void {
  if (node.nodeType === NodeType.TEXT_NODE) {
    w.text(node.text);
    return;
  }
  if (!(node instanceof HTMLElement) || isSkipped(node)) return;
  const tag = tagOf(node);
  const heading = HEADING.exec(tag);
  const children = () => {
    for (const c of node.childNodes) walk(c, w, ctx);
  };
  if (heading) {
    const text = inlineText(node);
    // a numbered heading ends the entry an unnumbered one opened
    w.flush();
    if (ctx.termDepth === 0) w.entry = null;
    w.preTerm = null;
    if (text) {
      const anchor = headingAnchor(node);
      w.push({ kind: 'heading', text, level: Number(heading[1]), ...(anchor ? { anchor } : {}) });
    }
  } else if (tag === 'pre' || tag === 'listing' || tag === 'xmp' || tag === 'textarea' || isMultilineCode(node)) {
    readPre(node, tag, w);
  } else if (tag === 'table' && !isLayoutTable(node)) {
    const b = tableBlock(node, inlineText);
    if (b) w.push(b);
  } else if (LISTS.has(tag)) {
    readList(node, w, ctx);
  } else if (tag === 'dl') {
    const above = node.previousElementSibling;
    termList(node.childNodes, above && hangsOverList(above) ? above : null, w, ctx);
  } else if (isIndented(node) && node.previousElementSibling && headsIndent(node.previousElementSibling)) {
    termList(node.childNodes, node.previousElementSibling, w, ctx);
  } else if (tag === 'dt') {
    // a term whose list node-html-parser lost (markup it does not nest as a browser does): the term
    // still opens its entry, which the next heading or term ends
    termOf(node, w, TERM_LEVEL + ctx.termDepth, null);
  } else if (tag === 'h') {
    // XHTML 2's section heading (SQLite's pages head each pragma with one, hidden): a heading below h1–h6
    const text = inlineText(node);
    // it heads one thing (a pragma, a function): the entry its section describes
    w.flush();
    if (ctx.termDepth === 0) w.entry = text ? termEntry(text) : null;
    if (text) w.push({ kind: 'heading', text, level: UNNUMBERED_HEADING_LEVEL });
  } else if (tag === 'p' && (hangsOverList(node) || headsIndent(node))) {
    // read by the term list or the indented description it heads (termList)
  } else if (tag === 'p' || tag === 'blockquote') {
    const quote = ctx.quote || tag === 'blockquote';
    w.begin(quote ? 'quote' : 'paragraph');
    // a bold label in a term's description is a field of that term ("Blocks: topmost" under BIND's
    // `acl`), not a term of its own
    withLead(
      node,
      w,
      () => {
        for (const c of node.childNodes) walk(c, w, { ...ctx, quote });
      },
      ctx.termDepth > 0 && w.entry !== null,
    );
  } else if (tag === 'br') {
    w.text(' ');
  } else if (tag === 'img') {
    w.text(` ${node.getAttribute('alt') ?? ''} `);
  } else if (tag === 'div' && describedByPre(node)) {
    openTermOverPre(node, w);
  } else if (BLOCK_CONTAINERS.has(tag)) {
    w.flush();
    children();
    w.flush();
  } else {
    children();
  }
}

/** A list (`<ul>`, `<ol>`): each item a block one level deeper, led by its bold term where it has one. */
function readList(node: HTMLElement, w: BlockWriter, ctx: WalkContext) {
  w.flush();
  for (const c of node.childNodes) {
    if (tagOf(c) !== 'li') {
      walk(c, w, ctx);
      continue;
    }
    w.begin('list_item', ctx.listDepth + 1);
    const inner = { ...ctx, listDepth: ctx.listDepth + 1 };
    const named = itemTerm(c as HTMLElement);
    if (named) {
      // the item is its term's entry, its description opened by the term's line
      const outer = w.entry;
      w.entry = named.entry;
      // without the dash or colon its line ends with ("aggregate_class (class | None) –"): the lead adds its own
      w.lead(inlineText(named.head).replace(/[\s:;,\u2013\u2014-]+$/u, ''));
      for (const x of c.childNodes) if (x !== named.head) walk(x, w, inner);
      w.flush();
      w.entry = outer;
    } else
      withLead(c as HTMLElement, w, () => {
        for (const x of c.childNodes) walk(x, w, inner);
      });
  }
}

/** Words a term's line may add after the bold term: a type, a version ("umask available 8.26.0+"), not a sentence. */
const TERM_NOTE_WORDS = 6;

/**
 * A list item that names its term in a paragraph of its own, then describes it (Sphinx's parameter
 * lists: `<li><p><strong>workDirectory</strong></p><p>Sets the directory…</p></li>`, SQLite's limits).
 */
function itemTerm(li: HTMLElement): { head: HTMLElement; entry: Entry } | null {
  const kids = li.childNodes.filter((c) => (c instanceof HTMLElement ? !isSkipped(c) : c.text.trim()));
  const head = kids[0];
  if (kids.length < 2 || !(head instanceof HTMLElement) || tagOf(head) !== 'p') return null;
  const first = head.childNodes.find((c) => c instanceof HTMLElement || c.text.trim());
  if (!(first instanceof HTMLElement) || !BOLD.has(tagOf(first))) return null;
  const line = inlineText(head);
  const bold = inlineText(first);
  const note = line.slice(bold.length).trim();
  if (!line.startsWith(bold) || note.split(/\s+/).length > TERM_NOTE_WORDS || /[.:]$/.test(note)) return null;
  const entry = fieldEntry(bold);
  return entry ? { head, entry } : null;
}

/** A preformatted block: a term's description, a manual page formatted as text, or code. */
function readPre(node: HTMLElement, tag: string, w: BlockWriter): void {
  const text = preText(node, !CODE_INLINE.has(tag));
  if (tag === 'pre' && w.preTerm) {
    // a term's description stays one block, as any `<pre>` does (its entry's, see openTermOverPre):
    // read as paragraphs, its arguments and examples went to chunks without their keyword
    w.push({ kind: 'code', text: unwrapProse(text) });
    w.preTerm.described = true;
  } else if (tag === 'pre' && isManPageText(text)) for (const b of manPageBlocks(text, TERM_LEVEL)) w.push(b);
  else if (text.trim()) w.push({ kind: 'code', text: tag === 'pre' ? unwrapProse(text) : text });
}

/** A bold term over its `<pre>` (see describedByPre). */
function openTermOverPre(node: HTMLElement, w: BlockWriter): void {
  // like a term without its list: it opens its entry, which the next heading or term ends; the
  // names of one description are one term
  const name = inlineText(node);
  const term = w.preTerm && !w.preTerm.described ? `${w.preTerm.term}, ${name}` : name;
  w.flush();
  w.entry = termEntry(term) ?? termEntry(name);
  w.push({ kind: 'heading', text: term, level: TERM_LEVEL });
  w.preTerm = { term, described: false };
}

/**
 * A term list (`<dl>`: HTML's own, DocBook's variable lists, a manual page's options): each term is
 * a heading its description is filed under, and the entry every block of the description belongs to.
 * `above`: the term written over the list or the indented block (hangsOverList, headsIndent).
 */
function termList(items: readonly Node[], above: HTMLElement | null, w: BlockWriter, ctx: WalkContext) {
  w.flush();
  const level = TERM_LEVEL + ctx.termDepth;
  const outer = w.entry;
  if (above) termOf(above, w, level, outer);
  const tags = items.filter((c): c is HTMLElement => c instanceof HTMLElement);
  // the element's place among the elements, counted as the walk goes (a manual's list holds thousands)
  let at = -1;
  for (const c of items) {
    if (c instanceof HTMLElement) at++;
    if (tagOf(c) === 'dt') termOf(c, w, level, outer);
    else if (c instanceof HTMLElement && namesBulletedTerm(tags, at))
      termOf(c, w, level, outer, inlineText(c).replace(/:$/, ''));
    else walk(c, w, { ...ctx, termDepth: ctx.termDepth + 1 });
  }
  w.flush();
  w.entry = outer;
  w.push({ kind: 'section_end', text: '', level });
}

/**
 * A hanging paragraph as mandoc writes it (help2man's options: `<p>-i[SUFFIX], --in-place</p><dl><dt></dt>
 * <dd>edit files in place…</dd></dl>`): the paragraph is the term of the list right under it, whose
 * first term is empty.
 */
function hangsOverList(p: HTMLElement): boolean {
  // mandoc marks it (class "HP"); a paragraph over an indented list with no tags is the list's lead-in
  const list = tagOf(p) === 'p' && /\bHP\b/.test(p.getAttribute('class') ?? '') ? p.nextElementSibling : null;
  const first = list && tagOf(list) === 'dl' ? list.childNodes.find((c) => c instanceof HTMLElement) : undefined;
  return first !== undefined && tagOf(first) === 'dt' && !inlineText(first);
}

/**
 * A term over its indented description as mandoc writes one (asciidoctor's manual pages: chrony's
 * directives, nft's options): `<p><b>makestep</b> <i>threshold</i></p><div class="Bd-indent">…</div>`.
 */
function headsIndent(p: HTMLElement): boolean {
  const next = p.nextElementSibling;
  return next !== null && isIndented(next) && isTermLine(p, 'p');
}

/** An indented block: mandoc's `Bd-indent`, or a `<blockquote>` under a term (SQLite's compile-time options). */
const isIndented = (el: HTMLElement) =>
  (tagOf(el) === 'div' && /\bBd-indent\b/.test(el.getAttribute('class') ?? '')) || tagOf(el) === 'blockquote';

/**
 * A paragraph opened right inside a term or its description (`<dt><p>abs(X)</dt>`, valid HTML: the
 * `</dt>` closes it) makes node-html-parser drop the `<dt>` and `<dd>` around it; the paragraph adds
 * nothing there, so its opening tag goes before parsing.
 */
const PARAGRAPH_IN_TERM = /<(dt|dd)(\s[^>]*)?>(\s*)<p(\s[^>]*)?>/gi;

/**
 * Gathers one paragraph or item with the entry its bold lead opens, then ends it. Without a lead the
 * entry is left as the content leaves it: a heading inside an unclosed paragraph (SQLite's pragma
 * pages) opens the entry of what follows. In a term's description (`inEntry`), a label the page
 * repeats is one of the term's fields ("Blocks: topmost" under each of BIND's statements, curl's
 * "WARNING:") and leaves its entry as it is; a label said once names a part of it (a parameter).
 */
function withLead(el: HTMLElement, w: BlockWriter, gather: () => void, inEntry = false): void {
  const found = boldLead(el);
  const field = inEntry && w.entry !== null && found !== null && w.fieldLabels.has(found.term);
  if (field) w.markField();
  const lead = field ? null : found;
  if (!lead) {
    gather();
    w.flush();
    return;
  }
  const outer = w.entry;
  w.entry = lead;
  gather();
  w.flush();
  w.entry = outer;
}

/** A term (`<dt>`): the heading of its description and the entry it opens (or `outer`, when it is not a name). */
function termOf(dt: Node, w: BlockWriter, level: number, outer: Entry | null, term = inlineText(dt)): void {
  // a bullet or a dash in the term column ("•") marks a list item, not a term; punctuation that is
  // a name stays one (ssh's escape "~.", sed's "=" command)
  if (!term || BULLET.test(term)) return;
  w.flush();
  w.entry = termEntry(term) ?? outer;
  w.push({ kind: 'heading', text: term, level });
  if (term.split(/\s+/).length <= TERM_LEAD_WORDS) w.lead(term);
}

/**
 * A bulleted item that is only its term, over the untagged items that describe it, as ronn's manual
 * pages come out of mandoc (jq's options: `<dt>○</dt><dd><b>--seq</b>:</dd><dt></dt><dd>Use the…</dd>`).
 */
function namesBulletedTerm(tags: readonly HTMLElement[], i: number): boolean {
  const [marker, item, next] = [tags[i - 1], tags[i], tags[i + 1]];
  if (!item || !marker || tagOf(marker) !== 'dt' || !BULLET.test(inlineText(marker))) return false;
  if (!next || tagOf(next) !== 'dt' || inlineText(next)) return false;
  const kids = item.childNodes.filter((c) => (c instanceof HTMLElement ? !isSkipped(c) : c.text.trim()));
  const first = kids[0];
  const inline = !kids.some((c) => isBlockTag(tagOf(c)));
  return first instanceof HTMLElement && BOLD.has(tagOf(first)) && inline && /:$/.test(inlineText(item));
}

/** A list item's marker in a term list's term column. */
const BULLET = /^[\u2022\u2023\u25cb\u25cf\u25e6\u25aa\u25a0\u00b7\u2013\u2014-]$/u;

/** A document type declaration after a comment is read by node-html-parser as text ("<!DOCTYPE html> SQLite Small."). */
const DOCTYPE = /<!DOCTYPE[^>]*>/gi;

/**
 * node-html-parser closes few of the end tags HTML lets a page leave out: SQLite's pages leave their menu's
 * `<li>`s open and lost every list and its items' terms after it. parse5 (the WHATWG parser jsdom uses)
 * closes them where a browser does; its markup, balanced, is what the walk reads.
 */
function balanced(source: string): string {
  return serialize(parseSpec(source));
}

export function parseHtml(source: string): ParsedDocument {
  const root = parse(balanced(source.replace(PARAGRAPH_IN_TERM, '<$1$2>$3')).replace(DOCTYPE, ''), {
    comment: false,
    blockTextElements: { script: false, style: false, noscript: false },
  });
  const title = cleanText(root.querySelector('title')?.text ?? '') || null;
  const canonical =
    root.querySelector('link[rel="canonical"]')?.getAttribute('href') ??
    root.querySelector('meta[property="og:url"]')?.getAttribute('content');
  const body = root.querySelector('body') ?? root;
  const writer = new BlockWriter();
  writer.fieldLabels = repeatedLabels(body);
  walk(body, writer, { listDepth: 0, termDepth: 0, quote: false });
  writer.flush();
  const blocks = writer.blocks;
  return {
    title: title ?? blocks.find((b) => b.kind === 'heading' && b.level === 1)?.text ?? null,
    url: canonical && /^https?:\/\//.test(canonical) ? canonical : null,
    blocks,
  };
}
