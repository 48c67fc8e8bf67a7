import { HTMLElement, NodeType, type Node } from 'node-html-parser';
import { cleanText } from '../blocks.js';
import { ANCHOR_CLASSES } from './html-anchor.js';

// What an HTML element is to the parser (content or not, a block or inline), and its text as a browser renders it.

/** Never content: scripts, styles, navigation and embedded objects. */
const SKIPPED = new Set([
  'script',
  'style',
  'noscript',
  'template',
  'iframe',
  'head',
  'svg',
  'canvas',
  'object',
  'embed',
  'nav',
  'aside',
  'button',
  'select',
  'input',
]);
export const HEADING = /^h([1-6])$/;
export const LISTS = new Set(['ul', 'ol', 'menu']);
/** Elements that end the paragraph before them and start a new one after. */
export const BLOCK_CONTAINERS = new Set([
  'body',
  'html',
  'div',
  'section',
  'article',
  'main',
  'header',
  'footer',
  'figure',
  'figcaption',
  'form',
  'fieldset',
  'center',
  'details',
  'summary',
  'address',
  'hr',
  'caption',
  'li',
  'dd',
  'dt',
]);
export const CODE_INLINE = new Set(['code', 'tt', 'kbd', 'samp']);

export const tagOf = (n: Node): string => (n instanceof HTMLElement ? (n.rawTagName ?? '').toLowerCase() : '');
/** ARIA's landmarks for what `nav` and a search form are: a Sphinx page's sidebar says it is navigation. */
const SKIPPED_ROLES = /^(navigation|search)$/;
export const isSkipped = (el: HTMLElement) =>
  SKIPPED.has(tagOf(el)) ||
  SKIPPED_ROLES.test(el.getAttribute('role') ?? '') ||
  (tagOf(el) === 'a' && ANCHOR_CLASSES.test(el.getAttribute('class') ?? '') && !NAMES.test(el.text)) ||
  (tagOf(el) === 'table' && RUNNING_HEADS.test(el.getAttribute('class') ?? ''));
/** mandoc's running head and foot of a man page ("tcp(7) | Miscellaneous Information Manual | tcp(7)"). */
const RUNNING_HEADS = /^(head|foot)$/;
/**
 * Letters or digits: a permalink that holds them is the heading or term itself (mandoc writes
 * `<h1><a class="permalink">DESCRIPTION</a></h1>`), one without them is a "¶" mark (Sphinx, Apache).
 */
const NAMES = /[\p{L}\p{N}]/u;

/** The text of an element as one line, as a browser renders it: white space runs are one space. */
export function inlineText(node: Node): string {
  let out = '';
  const visit = (n: Node) => {
    if (n.nodeType === NodeType.TEXT_NODE) out += n.text;
    else if (n instanceof HTMLElement) {
      if (isSkipped(n)) return;
      const tag = tagOf(n);
      if (tag === 'br') out += ' ';
      else if (tag === 'img') out += ` ${n.getAttribute('alt') ?? ''} `;
      else {
        // a block inside inline text (a <div> in a table cell) still separates words
        const block = BLOCK_CONTAINERS.has(tag) || tag === 'p' || LISTS.has(tag) || HEADING.test(tag);
        if (block) out += ' ';
        for (const c of n.childNodes) visit(c);
        if (block) out += ' ';
      }
    }
  };
  visit(node);
  return cleanText(out.replace(/\u00b6/g, ' '));
}

/**
 * Preformatted text keeps its lines; a <br> inside it is a line break. In code that is not
 * preformatted (`<code>` lines joined by <br>), only the <br> breaks a line.
 */
export function preText(node: Node, preformatted: boolean): string {
  let out = '';
  const visit = (n: Node) => {
    if (n.nodeType === NodeType.TEXT_NODE) out += preformatted ? n.text : n.text.replace(/\s+/g, ' ');
    else if (n instanceof HTMLElement && !isSkipped(n)) {
      if (tagOf(n) === 'br') out += '\n';
      else for (const c of n.childNodes) visit(c);
    }
  };
  visit(node);
  return out
    .split('\n')
    .map((l) => (preformatted ? l.replace(/\s+$/, '') : l.trim()))
    .join('\n')
    .replace(/^\n+|\n+$/g, '');
}

export const isBlockTag = (tag: string) =>
  BLOCK_CONTAINERS.has(tag) ||
  LISTS.has(tag) ||
  HEADING.test(tag) ||
  ['p', 'pre', 'table', 'dl', 'blockquote'].includes(tag);

export const BOLD = new Set(['b', 'strong']);
