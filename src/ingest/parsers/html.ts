import { NodeHtmlMarkdown } from 'node-html-markdown';
import { parse } from 'node-html-parser';
import { cleanText, type ParsedDocument } from '../blocks.js';
import { parseMarkdown } from './markdown.js';

/**
 * HTML to text through Markdown: node-html-markdown keeps the structure the chunker needs
 * (headings, lists, tables) and drops scripts, styles and navigation; node-html-parser reads <title> and the
 * canonical link. The Markdown is then chunked like any other Markdown document.
 */
const converter = new NodeHtmlMarkdown({ ignore: ['script', 'style', 'noscript', 'template', 'iframe', 'head', 'svg', 'canvas', 'object', 'embed', 'nav', 'aside'] });

export function parseHtml(source: string): ParsedDocument {
  const root = parse(source, { comment: false, blockTextElements: { script: false, style: false, noscript: false, pre: true } });
  const title = cleanText(root.querySelector('title')?.text ?? '') || null;
  const canonical = root.querySelector('link[rel="canonical"]')?.getAttribute('href') ?? root.querySelector('meta[property="og:url"]')?.getAttribute('content');
  const body = root.querySelector('body') ?? root;
  const markdown = converter.translate(body.toString());
  const doc = parseMarkdown(markdown);
  return {
    title: title ?? doc.title,
    url: canonical && /^https?:\/\//.test(canonical) ? canonical : null,
    blocks: doc.blocks,
  };
}
