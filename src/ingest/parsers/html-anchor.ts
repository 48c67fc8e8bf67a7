import type { HTMLElement } from 'node-html-parser';

/** Permanent-link anchors that generated manuals put in headings (Sphinx's "headerlink", Apache's "permalink"). */
export const ANCHOR_CLASSES = /\b(headerlink|permalink)\b/;

/**
 * A heading's id in its page, for links to the section: its own id (mandoc, Confluence, Asciidoctor),
 * the target of the permanent link inside it (Sphinx's "headerlink"), or a named anchor inside it.
 */
export function headingAnchor(node: HTMLElement): string | null {
  const own = node.getAttribute('id')?.trim();
  if (own) return own;
  for (const a of node.querySelectorAll('a')) {
    const href = a.getAttribute('href') ?? '';
    if (ANCHOR_CLASSES.test(a.getAttribute('class') ?? '') && href.startsWith('#') && href.length > 1)
      return href.slice(1);
    const named = (a.getAttribute('id') ?? a.getAttribute('name'))?.trim();
    if (named) return named;
  }
  return null;
}
