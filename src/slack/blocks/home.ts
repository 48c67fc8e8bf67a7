import type { ActionsBlock, Button, HomeView, KnownBlock } from '@slack/types';
import type { AskedQuestion, FeedbackReason } from '../state/interfaces.js';
import { escapeMrkdwn, link, safeText, truncate } from './text.js';

/** The Home tab's buttons: an admin acting on a source an answer rested on. */
export const HOME_ACTIONS = {
  hide: 'ragask_home_source_hide',
  demote: 'ragask_home_source_demote',
} as const;

/** Slack's limit on a Home tab's blocks. */
const HOME_BLOCKS = 100;
/** Rows of each list: kinds and folders of sources, channels, questions, unhelpful answers. */
const LIST_ROWS = 8;
const QUESTION_CHARS = 150;

/** What one person's Home tab shows: only what that person may see (gathered by src/slack/home.ts). */
export interface HomeData {
  /** Sources that person's direct messages with ragask see: public ones and `user:<them>`. */
  visible: { total: number; byKind: [string, number][]; byFolder: [string, number][] };
  /** Channels scoped sources are shared with, where this person is known to be a member, with how many. */
  channels: { id: string; sources: number }[];
  questions: (AskedQuestion & { permalink: string | null })[];
  admin: AdminData | null;
}

export interface AdminData {
  backend: string;
  documents: number;
  windows: number;
  lastIngest: string | null;
  hidden: number;
  demoted: number;
  /** The latest answers marked not helpful, with the sources they cited. */
  notHelpful: { question: string; answer: string; reason: FeedbackReason | null; user: string; sources: string[] }[];
  /** The sources file's sources (RAGASK_SOURCES_FILE) with their last sync, or why the file cannot be read. */
  synced: { source: string; line: string; error: string | null }[] | { error: string } | null;
  /** The saved gap report as this admin may read it (null: none made yet). */
  gaps: { at: string; groups: { count: number; examples: string[]; closest: string[] }[] } | null;
}

const REASONS: Record<FeedbackReason, string> = {
  wrong: 'wrong',
  outdated: 'out of date',
  not_asked: 'not what was asked',
};

const header = (text: string): KnownBlock => ({ type: 'header', text: { type: 'plain_text', text, emoji: false } });
const mrkdwn = (text: string): KnownBlock => ({
  type: 'section',
  text: { type: 'mrkdwn', text: truncate(text, 3000), verbatim: true },
});
const divider: KnownBlock = { type: 'divider' };

const HOW_TO_ASK = [
  '*Mention me* in a channel: `@ragask which port does the VPN use?`, answered in a thread.',
  '*`/ragask <question>`* anywhere (`/ragask -p …` answers only you); *DM me* for your own sources.',
  '*Follow up in the thread*: "and on the staging cluster?" keeps the context.',
  'When the next hop is a guess I stop and offer *buttons*: pick the way, or take the answer so far.',
  'Every answer cites its snippets; *Not helpful* tells the admins which source misled you.',
].join('\n');

/** The Home tab of one person: how to ask, what ragask can see for them, their questions, and (for admins) the store. */
export function homeView(data: HomeData): HomeView {
  const blocks: KnownBlock[] = [header('How to ask'), mrkdwn(HOW_TO_ASK), divider];
  blocks.push(header('What I can see for you'), mrkdwn(visibleText(data)));
  blocks.push(divider, header('Your recent questions'), ...questionBlocks(data.questions));
  if (data.admin) blocks.push(divider, ...adminBlocks(data.admin));
  return { type: 'home', blocks: blocks.slice(0, HOME_BLOCKS) };
}

function counts(rows: [string, number][]): string {
  return rows
    .slice(0, LIST_ROWS)
    .map(([name, n]) => `${safeText(name, 80)} (${n})`)
    .join(', ');
}

function visibleText(data: HomeData): string {
  const v = data.visible;
  const lines = [
    `*${v.total}* source(s) in your direct messages with me${v.total ? `: ${counts(v.byKind)}` : ''}.`,
    ...(v.byFolder.length ? [`By folder: ${counts(v.byFolder)}.`] : []),
  ];
  if (data.channels.length)
    lines.push(
      `Shared only with channels you are in: ${data.channels
        .slice(0, LIST_ROWS)
        .map((c) => `<#${c.id}> (${c.sources})`)
        .join(', ')}; ask there to use them.`,
    );
  return lines.join('\n');
}

function questionBlocks(questions: HomeData['questions']): KnownBlock[] {
  if (!questions.length) return [mrkdwn('_None yet. Mention me or DM me a question._')];
  return questions.slice(0, LIST_ROWS).map((q) => {
    const asked = safeText(q.question, QUESTION_CHARS);
    const title = q.permalink ? link(q.permalink, truncate(q.question, QUESTION_CHARS)) : asked;
    const answer = q.answer ? `*${safeText(q.answer, 200)}*` : '_no definite answer_';
    const feedback = q.feedback
      ? q.feedback.value === 'helpful'
        ? ' · you found it helpful'
        : ` · you marked it not helpful${q.feedback.reason ? ` (${REASONS[q.feedback.reason]})` : ''}`
      : '';
    return mrkdwn(`${title}\n${answer}${feedback}`);
  });
}

function sourceButtons(source: string): ActionsBlock {
  const button = (text: string, actionId: string, style?: 'danger'): Button => ({
    type: 'button',
    text: { type: 'plain_text', text },
    action_id: actionId,
    value: source.slice(0, 2000),
    ...(style ? { style } : {}),
  });
  return {
    type: 'actions',
    elements: [button('Hide this source', HOME_ACTIONS.hide, 'danger'), button('Demote', HOME_ACTIONS.demote)],
  };
}

/** The kept-current sources, each with its last sync and its failure, if any (`ragask sync --status`). */
function syncBlocks(synced: AdminData['synced']): KnownBlock[] {
  if (!synced) return [];
  if ('error' in synced)
    return [mrkdwn(`*Kept current:* the sources file cannot be read: ${safeText(synced.error, 300)}`)];
  const lines = synced
    .slice(0, LIST_ROWS)
    .map(
      (s) =>
        `\`${safeText(s.source, 120)}\` ${safeText(s.line, 200)}${s.error ? `\n  :warning: ${safeText(s.error, 300)}` : ''}`,
    );
  return [mrkdwn(['*Kept current* (`ragask sync --status`):', ...lines].join('\n'))];
}

/** What the documents lack, as the saved gap report says and this admin may read. */
function gapBlocks(gaps: AdminData['gaps']): KnownBlock[] {
  if (!gaps) return [];
  if (!gaps.groups.length)
    return [mrkdwn(`*What the documents lack* (${gaps.at.slice(0, 16)}Z): _no gaps you may see._`)];
  const lines = gaps.groups.slice(0, LIST_ROWS).map((g) => {
    const closest = g.closest.length ? ` — closest: ${g.closest.map((t) => safeText(t, 80)).join(', ')}` : '';
    return `• ${g.count} question(s), e.g. _${safeText(g.examples[0] ?? '', QUESTION_CHARS)}_${closest}`;
  });
  return [mrkdwn([`*What the documents lack* (\`ragask gaps\`, ${gaps.at.slice(0, 16)}Z):`, ...lines].join('\n'))];
}

function adminBlocks(a: AdminData): KnownBlock[] {
  const blocks: KnownBlock[] = [
    header('For admins'),
    mrkdwn(
      [
        `Store: *${escapeMrkdwn(a.backend)}*, ${a.documents} document(s), ${a.windows} window(s); last ingest ${a.lastIngest ? escapeMrkdwn(a.lastIngest) : 'never'}.`,
        `${a.hidden} source(s) hidden, ${a.demoted} demoted (\`ragask sources list\`).`,
      ].join('\n'),
    ),
    ...syncBlocks(a.synced),
    ...gapBlocks(a.gaps),
  ];
  if (!a.notHelpful.length) return [...blocks, mrkdwn('_No answer marked not helpful._')];
  blocks.push(mrkdwn('*Latest answers marked not helpful*'));
  for (const f of a.notHelpful.slice(0, LIST_ROWS)) {
    blocks.push(
      mrkdwn(
        `<@${f.user}> asked _${safeText(f.question, QUESTION_CHARS)}_ → ${safeText(f.answer, 200)}${f.reason ? ` (${REASONS[f.reason]})` : ''}`,
      ),
    );
    // each cited source with its buttons, while the tab stays within its block limit
    for (const s of f.sources.slice(0, 3)) blocks.push(mrkdwn(`\`${safeText(s, 200)}\``), sourceButtons(s));
  }
  return blocks;
}
