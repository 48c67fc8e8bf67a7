/** Slack's limits that the builders respect (https://api.slack.com/reference/block-kit). */
export const LIMITS = {
  sectionText: 3000,
  contextText: 3000,
  contextElements: 10,
  blocks: 50,
  buttonText: 75,
  buttonValue: 2000,
  actionsElements: 25,
  /** The plain-text fallback and notifications; Slack truncates messages past 40,000 characters. */
  fallbackText: 3000,
  /** Total size of the blocks we send; well under what Slack accepts for one message. */
  messageChars: 30_000,
} as const;

/**
 * Escapes text for Slack mrkdwn: &, < and > are the only control characters, and escaping them makes
 * any echoed `<!channel>`, `<@U123>` or `<https://…|link>` inert: it can neither ping nor link.
 */
export function escapeMrkdwn(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** Cuts text to `max` characters on a word boundary where possible, marking the cut with "…". */
export function truncate(text: string, max: number): string {
  const chars = [...text];
  if (chars.length <= max) return text;
  const cut = chars.slice(0, Math.max(1, max - 1)).join('');
  const space = cut.lastIndexOf(' ');
  return `${space > max * 0.6 ? cut.slice(0, space) : cut}…`;
}

/** Escape, then truncate without cutting an entity like &amp; in half. */
export function safeText(text: string, max: number): string {
  let t = truncate(escapeMrkdwn(text), max);
  const amp = t.lastIndexOf('&');
  if (amp >= 0 && !/^&(amp|lt|gt);/.test(t.slice(amp))) t = `${t.slice(0, amp)}…`;
  return t;
}

/** A link in mrkdwn, or just the label when the URL is not http(s). */
export function link(url: string | null, label: string): string {
  const l = escapeMrkdwn(label).replace(/\|/g, '¦');
  if (!url || !/^https?:\/\/[^\s<>|]+$/.test(url)) return l;
  return `<${url}|${l}>`;
}

/** A duration as a person reads it: whole hours as hours, anything else in minutes (at least 1). */
export function humanDuration(ms: number): string {
  const minutes = Math.max(1, Math.round(ms / 60_000));
  return minutes % 60 === 0 ? `${minutes / 60} h` : `${minutes} min`;
}
