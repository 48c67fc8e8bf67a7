import { Lexer, type Token, type Tokens } from 'marked';
import GithubSlugger from 'github-slugger';
import { lazyPackage } from '../../lazy-package.js';
import type { Entry } from '../../store/types.js';
import { cleanText, type Block, type ParsedDocument } from '../blocks.js';
import { fieldEntry, termEntry } from '../entries.js';

const yaml = lazyPackage<typeof import('yaml')>('yaml');

/** Nesting beyond this is flattened: a hostile file cannot exhaust the stack. */
const MAX_DEPTH = 32;

/**
 * Markdown to blocks with marked's lexer (CommonMark + GFM tables; well kept and fast).
 * YAML front matter (title, url) is read with the yaml package.
 */
export function parseMarkdown(source: string): ParsedDocument {
  let body = source.replace(/^\uFEFF/, '');
  let title: string | null = null;
  let url: string | null = null;
  const fm = /^---\r?\n([\s\S]*?)\r?\n---\r?\n/.exec(body);
  if (fm) {
    try {
      const meta = yaml().parse(fm[1]!) as Record<string, unknown> | null;
      if (meta && typeof meta === 'object') {
        if (typeof meta.title === 'string') title = cleanText(meta.title);
        const u = meta.url ?? meta.source_url ?? meta.link;
        if (typeof u === 'string' && /^https?:\/\//.test(u)) url = u.trim();
      }
    } catch {
      // not YAML after all: keep it as text
    }
    body = body.slice(fm[0].length);
  }
  const blocks: Block[] = [];
  walk(new Lexer({ gfm: true }).lex(body), blocks, 0);
  if (!title) title = blocks.find((b) => b.kind === 'heading' && b.level === 1)?.text ?? null;
  return { title, url, blocks };
}

/**
 * Each heading's id as GitHub and GitLab render a Markdown file ("Set-up & run" → set-up--run; a
 * repeat gets -1, -2): for files cited by their hosted view in a repository, where that is the page's
 * own scheme. Other hosts slug headings their own ways, so other Markdown links go to the page.
 */
export function withHeadingSlugs(doc: ParsedDocument): ParsedDocument {
  const slugger = new GithubSlugger();
  return { ...doc, blocks: doc.blocks.map((b) => (b.kind === 'heading' ? { ...b, anchor: slugger.slug(b.text) } : b)) };
}

function inlineText(tokens: Token[] | undefined, fallback = ''): string {
  if (!tokens) return cleanText(fallback);
  let out = '';
  const visit = (ts: Token[], depth: number) => {
    for (const t of ts) {
      if (t.type === 'br') out += ' ';
      else if (t.type === 'html') out += ' ';
      else if (t.type === 'image') out += (t as Tokens.Image).text ?? '';
      else if ('tokens' in t && Array.isArray(t.tokens) && t.tokens.length && depth < MAX_DEPTH)
        visit(t.tokens, depth + 1);
      else if ('text' in t && typeof t.text === 'string') out += t.text;
      else if ('raw' in t) out += t.raw;
    }
  };
  visit(tokens, 0);
  return cleanText(out.replace(/<[^>]*>/g, ' '));
}

/** A dash that sets a lead apart from what it says of it ("Leave — …"; a hyphen inside words does not). */
const LEAD_DASH = /^(.{1,80}?)\s+[\u2013\u2014]\s+\S/u;

/**
 * The field an item or paragraph describes: a bolded lead followed by a colon or a dash
 * ("**Leave**: …", "**Leave:** …", "**Leave** — …"), a name in code so set apart, or a plain lead set
 * apart by an en or em dash.
 */
function leadEntry(tokens: Token[] | undefined, text: string): Entry | null {
  const [first, second] = tokens ?? [];
  if (first?.type === 'strong') {
    const bold = inlineText((first as Tokens.Strong).tokens, (first as Tokens.Strong).text);
    const after = second && 'raw' in second ? second.raw : '';
    if (/:$/.test(bold) || /^\s*(:|[-\u2013\u2014]\s)/u.test(after)) return fieldEntry(bold);
  }
  // a name in code set apart the same way ("`namespace`: namespace of the workload") names a term
  if (first?.type === 'codespan' && second && 'raw' in second && /^\s*(:|[-\u2013\u2014]\s)/u.test(second.raw))
    return termEntry((first as Tokens.Codespan).text);
  const dashed = LEAD_DASH.exec(text);
  return dashed ? fieldEntry(dashed[1]!) : null;
}

/** The tokens a list item's own text is made of (its first paragraph or text run). */
function leadTokens(item: Tokens.ListItem): Token[] | undefined {
  const first = item.tokens[0];
  return first && 'tokens' in first && Array.isArray(first.tokens) ? first.tokens : undefined;
}

function walk(tokens: Token[], out: Block[], depth: number): void {
  for (const t of tokens) {
    switch (t.type) {
      case 'heading': {
        const h = t as Tokens.Heading;
        const text = inlineText(h.tokens, h.text);
        if (text) out.push({ kind: 'heading', text, level: h.depth });
        break;
      }
      case 'paragraph': {
        const p = t as Tokens.Paragraph;
        const text = inlineText(p.tokens, p.text);
        const entry = leadEntry(p.tokens, text);
        if (text) out.push({ kind: 'paragraph', text, ...(entry ? { entry } : {}) });
        break;
      }
      case 'text': {
        const x = t as Tokens.Text;
        const text = inlineText(x.tokens, x.text);
        if (text) out.push({ kind: 'paragraph', text });
        break;
      }
      case 'list': {
        for (const item of (t as Tokens.List).items) listItem(item, out, depth);
        break;
      }
      case 'table': {
        const tb = t as Tokens.Table;
        const header = tb.header.map((c) => inlineText(c.tokens, c.text));
        const rows = tb.rows.map((r) => r.map((c) => inlineText(c.tokens, c.text)));
        out.push({ kind: 'table', text: '', header, rows });
        break;
      }
      case 'code': {
        const text = (t as Tokens.Code).text.trim();
        if (text) out.push({ kind: 'code', text });
        break;
      }
      case 'blockquote': {
        const q = t as Tokens.Blockquote;
        if (depth < MAX_DEPTH) {
          const inner: Block[] = [];
          walk(q.tokens, inner, depth + 1);
          for (const b of inner) out.push(b.kind === 'paragraph' ? { ...b, kind: 'quote' } : b);
        } else {
          const text = cleanText(q.text);
          if (text) out.push({ kind: 'quote', text });
        }
        break;
      }
      case 'html': {
        const text = cleanText(
          (t as Tokens.HTML).text
            .replace(/<script[\s\S]*?<\/script>|<style[\s\S]*?<\/style>/gi, ' ')
            .replace(/<[^>]*>/g, ' '),
        );
        if (text) out.push({ kind: 'paragraph', text });
        break;
      }
      default:
        break;
    }
  }
}

function listItem(item: Tokens.ListItem, out: Block[], depth: number): void {
  const own: Token[] = [];
  const nested: Token[] = [];
  for (const tok of item.tokens) (tok.type === 'list' ? nested : own).push(tok);
  const text = own
    .map((tok) =>
      'tokens' in tok && Array.isArray(tok.tokens)
        ? inlineText(tok.tokens, 'text' in tok ? String(tok.text) : '')
        : 'text' in tok
          ? cleanText(String(tok.text))
          : '',
    )
    .filter(Boolean)
    .join(' ');
  const entry = leadEntry(leadTokens(item), text);
  if (text)
    out.push({
      kind: 'list_item',
      text: item.task ? `${item.checked ? '[x]' : '[ ]'} ${text}` : text,
      level: depth + 1,
      ...(entry ? { entry } : {}),
    });
  if (depth < MAX_DEPTH) {
    for (const n of nested) for (const sub of (n as Tokens.List).items) listItem(sub, out, depth + 1);
  } else {
    for (const n of nested) {
      const flat = cleanText((n as Tokens.List).raw.replace(/^\s*([-*+]|\d+[.)])\s+/gm, ' '));
      if (flat) out.push({ kind: 'list_item', text: flat, level: depth + 1 });
    }
  }
}
