import type { TextDocument } from '../../ingest/ingest.js';
import { UserError } from '../../errors.js';
import type { SlackApi } from '../api.js';
import type { SlackMessage } from './message.js';
import type { ProgressReporter } from '../../progress.js';

/**
 * Slack channels as documents: each thread (its root and replies) is one document and a lone
 * message its own, titled "#channel: <first words>", with each message's author and date in the
 * text and the root's permalink as its citation. ragask's own and other bots' messages are never
 * sources. Read through the rate-limited API (Tier 3 history, 429s waited out), newest first, only
 * what is newer than the ts the last run stopped at.
 */

/** Words of the root message in a thread's title. */
const TITLE_WORDS = 8;
/** Message subtypes that are what people wrote (everything else: joins, topic changes, bots, files alone). */
const PEOPLE_SUBTYPES = new Set([undefined, 'thread_broadcast', 'file_share', 'me_message']);

/** The store source of a thread: the channel and its root's ts. */
export function threadSource(channel: string, rootTs: string): string {
  return `slack:${channel}/${rootTs}`;
}

/** The ingest cursor of a channel: the newest root ts read. */
export function channelCursor(channel: string): string {
  return `slack:${channel}`;
}

export interface ChannelRead {
  documents: TextDocument[];
  /** The newest root ts read (the next run's `oldest`), or the previous one when nothing was new. */
  newest: string | null;
}

/** People's display names, each asked of Slack once (users.info). */
export function userNames(api: SlackApi): (user: string) => Promise<string> {
  const names = new Map<string, Promise<string>>();
  return (user) => {
    if (!names.has(user)) names.set(user, api.userName(user));
    return names.get(user)!;
  };
}

/** Where a channel's threads are read (one conversations.info and one auth.test): before any history, so a refusal costs nothing. */
export async function channelPlace(api: SlackApi, channel: string): Promise<ThreadPlace> {
  const [info, me] = await Promise.all([explained(channel, api.channelInfo(channel)), api.identity()]);
  return { channel, name: info.name, isPrivate: info.isPrivate, workspaceUrl: me.url, botUserId: me.botUserId };
}

/** Reads a channel's threads newer than `oldest` as documents. Errors name the channel and the fix. */
export async function readChannel(
  api: SlackApi,
  where: ThreadPlace,
  oldest: string | null,
  names: (user: string) => Promise<string>,
  progress?: ProgressReporter,
): Promise<ChannelRead> {
  const { channel } = where;
  const roots: SlackMessage[] = [];
  for (let cursor: string | null = null, first = true; first || cursor; first = false) {
    const page: { messages: SlackMessage[]; next: string | null } = await explained(
      channel,
      api.history(channel, oldest, cursor),
    );
    roots.push(...page.messages);
    cursor = page.next;
  }
  const documents: TextDocument[] = [];
  // threads are read one call each at Tier 3's pace: the bar's ETA is what the tier allows
  const threads = roots.filter((r) => r.reply_count).length;
  progress?.start(threads, `#${where.name}: reading threads`);
  let read = 0;
  for (const root of roots) {
    const thread = root.reply_count ? await readThread(api, channel, root.ts) : [root];
    if (root.reply_count) progress?.update(++read);
    const doc = await threadDocument(thread, where, names);
    if (doc) documents.push(doc);
  }
  progress?.stop();
  const newest = roots.reduce<string | null>((a, m) => (a === null || Number(m.ts) > Number(a) ? m.ts : a), oldest);
  return { documents, newest };
}

/** Where a thread was read: its channel, the channel's name, the workspace's URL and the bot's own id. */
export interface ThreadPlace {
  channel: string;
  name: string;
  /** A private channel, group DM or DM: never a public source. */
  isPrivate: boolean;
  workspaceUrl: string;
  botUserId: string | null;
}

/** A thread (root first) as its document, or null when no person wrote anything in it. */
export async function threadDocument(
  thread: readonly SlackMessage[],
  where: ThreadPlace,
  names: (user: string) => Promise<string>,
): Promise<TextDocument | null> {
  const root = thread[0];
  const messages = thread.filter(
    (m) => !!m.user && !m.bot_id && m.user !== where.botUserId && PEOPLE_SUBTYPES.has(m.subtype) && !!m.text?.trim(),
  );
  if (!root || !messages.length) return null;
  const lines = await Promise.all(
    messages.map(async (m) => `${await names(m.user!)} (${dateOf(m.ts)}): ${plainText(m.text!)}`),
  );
  return {
    source: threadSource(where.channel, root.ts),
    title: `#${where.name}: ${firstWords(plainText(messages[0]!.text!))}`,
    text: lines.join('\n\n'),
    url: `${where.workspaceUrl.replace(/\/?$/, '/')}archives/${where.channel}/p${root.ts.replace('.', '')}`,
    kind: 'slack',
  };
}

/** A whole thread, root first, page by page. */
export async function readThread(api: SlackApi, channel: string, ts: string): Promise<SlackMessage[]> {
  const out: SlackMessage[] = [];
  for (let cursor: string | null = null, first = true; first || cursor; first = false) {
    const page: { messages: SlackMessage[]; next: string | null } = await explained(
      channel,
      api.replies(channel, ts, cursor),
    );
    // every page repeats the root first
    out.push(...page.messages.filter((m) => out.length === 0 || m.ts !== ts));
    cursor = page.next;
  }
  return out;
}

/** A message's date as a person reads it (UTC). */
function dateOf(ts: string): string {
  return new Date(Number(ts) * 1000).toISOString().slice(0, 16).replace('T', ' ');
}

/** Slack's markup as plain words: <@U1> and <#C1|name> by name, links by their label, entities decoded. */
function plainText(text: string): string {
  return text
    .replace(/<([^<>|]+)\|([^<>]+)>/g, (_, _target: string, label: string) => label)
    .replace(/<([^<>]+)>/g, (_, target: string) => target.replace(/^[@#!]/, ''))
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
}

function firstWords(text: string): string {
  const words = text.split(/\s+/).filter(Boolean);
  return words.slice(0, TITLE_WORDS).join(' ') + (words.length > TITLE_WORDS ? '…' : '');
}

/** Slack's errors for a channel as one line that names it and what to do. */
async function explained<T>(channel: string, call: Promise<T>): Promise<T> {
  try {
    return await call;
  } catch (e) {
    const code = (e as { data?: { error?: string; needed?: string } }).data?.error;
    const needed = (e as { data?: { needed?: string } }).data?.needed;
    if (code === 'not_in_channel' || code === 'channel_not_found')
      throw new UserError(
        `--slack ${channel}: ragask is not in this channel (or cannot see it); type /invite @ragask there, then run this again`,
        'config',
      );
    if (code === 'missing_scope')
      throw new UserError(
        `--slack ${channel}: the Slack app lacks the ${needed ?? 'channels:history / groups:history'} scope; add it under oauth_config.scopes.bot in manifest.yml, reinstall the app, and run this again`,
        'config',
      );
    if (code === 'invalid_auth' || code === 'token_revoked' || code === 'account_inactive' || code === 'not_authed')
      throw new UserError(
        `SLACK_BOT_TOKEN: Slack refused the token (${code}); reinstall the app and put the new Bot User OAuth Token (xoxb-…) in .env`,
        'config',
      );
    throw e;
  }
}
