/** Every text object of the blocks, by type: mrkdwn (Slack formats, links and pings it) or plain_text (literal). */
export function textObjects(blocks: unknown): { mrkdwn: { text: string; verbatim?: boolean }[]; plain: string[] } {
  const mrkdwn: { text: string; verbatim?: boolean }[] = [];
  const plain: string[] = [];
  const walk = (x: unknown): void => {
    if (Array.isArray(x)) {
      for (const v of x) walk(v);
      return;
    }
    if (!x || typeof x !== 'object') return;
    const o = x as Record<string, unknown>;
    if (o.type === 'mrkdwn' && typeof o.text === 'string')
      mrkdwn.push({ text: o.text, ...(typeof o.verbatim === 'boolean' ? { verbatim: o.verbatim } : {}) });
    else if (o.type === 'plain_text' && typeof o.text === 'string') plain.push(o.text);
    else for (const v of Object.values(o)) walk(v);
  };
  walk(blocks);
  return { mrkdwn, plain };
}

type RichElement = {
  type: string;
  text?: string;
  url?: string;
  style?: { bold?: boolean; italic?: boolean; code?: boolean };
  elements?: RichElement[];
  style_?: string;
};

/**
 * A rich_text block read back as the marks a person would see: bold as *x*, italic as _x_, a quote
 * as "> " lines, a link as <url|text>, list items as "• ". Text elements are literal: their own
 * characters are kept as they are (a "*" in a document stays a "*").
 */
export function richTextOf(block: { type: string; elements?: unknown[] }): string {
  const inline = (els: RichElement[] = []) =>
    els
      .map((e) => {
        if (e.type === 'link') return `<${e.url}|${e.text ?? e.url}>`;
        const t = e.text ?? '';
        return e.style?.bold ? `*${t}*` : e.style?.italic ? `_${t}_` : e.style?.code ? `\`${t}\`` : t;
      })
      .join('');
  return ((block.elements ?? []) as RichElement[])
    .map((el) => {
      if (el.type === 'rich_text_quote') return `> ${inline(el.elements)}`;
      if (el.type === 'rich_text_list') return (el.elements ?? []).map((i) => `• ${inline(i.elements)}`).join('\n');
      return inline(el.elements);
    })
    .join('\n');
}

/** Rich-text elements whose text Slack would parse as markup: none may exist (text elements are literal). */
export function richTextKinds(blocks: unknown): Set<string> {
  const kinds = new Set<string>();
  const walk = (x: unknown, inRich: boolean): void => {
    if (Array.isArray(x)) {
      for (const v of x) walk(v, inRich);
      return;
    }
    if (!x || typeof x !== 'object') return;
    const o = x as Record<string, unknown>;
    const rich = inRich || o.type === 'rich_text';
    if (inRich && typeof o.type === 'string') kinds.add(o.type);
    for (const v of Object.values(o)) walk(v, rich);
  };
  walk(blocks, false);
  return kinds;
}
