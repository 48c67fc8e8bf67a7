/** Every text object of the blocks, by type: mrkdwn (Slack formats, links and pings it) or plain_text (literal). */
export function textObjects(blocks: unknown): { mrkdwn: { text: string; verbatim?: boolean }[]; plain: string[] } {
  const mrkdwn: { text: string; verbatim?: boolean }[] = [];
  const plain: string[] = [];
  const walk = (x: unknown): void => {
    if (Array.isArray(x)) return x.forEach(walk);
    if (!x || typeof x !== 'object') return;
    const o = x as Record<string, unknown>;
    if (o.type === 'mrkdwn' && typeof o.text === 'string') mrkdwn.push({ text: o.text, ...(typeof o.verbatim === 'boolean' ? { verbatim: o.verbatim } : {}) });
    else if (o.type === 'plain_text' && typeof o.text === 'string') plain.push(o.text);
    else for (const v of Object.values(o)) walk(v);
  };
  walk(blocks);
  return { mrkdwn, plain };
}
