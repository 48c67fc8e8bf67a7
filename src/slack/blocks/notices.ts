/** Short messages around an answer: working, busy, usage, notices, errors, and the not-helpful follow-up. */
import type { ActionsBlock } from '@slack/types';
import { FEEDBACK_REASONS, type FeedbackReason } from '../state/interfaces.js';
import { LIMITS, safeText, truncate } from './text.js';
import { type Message, echo, context, section, button, REASON_LABELS, ACTIONS } from './answer.js';

export function workingMessage(question: string): Message {
  return {
    text: 'Looking through the documents…',
    blocks: [echo(':mag: Looking through the documents for', question, 300)],
  };
}

export function busyMessage(): Message {
  return {
    text: 'Busy, retrying…',
    blocks: [
      context(':hourglass_flowing_sand: Many questions right now: yours is queued and will be answered shortly.'),
    ],
  };
}

export function usageMessage(prefix?: string): Message {
  const lines = [
    prefix ?? '*How to ask ragask*',
    '• `/ragask <question>` — answers in this channel (`/ragask -p <question>` answers only you)',
    '• `@ragask <question>` in a channel, or a direct message — answers in a thread',
    '• Reply in the thread with a question to follow up ("and at −40 °C?"), or mention @ragask there; no mention needed for a question',
    '• `/ragask sources` — which documents this channel can see',
    '• `/ragask help` — this message',
    'Every answer cites its snippets; when the evidence is thin or disagrees, ragask says so.',
  ];
  return { text: 'How to ask ragask', blocks: [section(lines.join('\n'))] };
}

/** A one-section message: plain text (escaped), or mrkdwn the caller made safe (mentions of ids it chose). */
export function noticeMessage(text: string, opts: { mrkdwn?: boolean } = {}): Message {
  const body = opts.mrkdwn ? truncate(text, LIMITS.sectionText) : safeText(text, LIMITS.sectionText);
  return {
    text: opts.mrkdwn ? truncate(text, LIMITS.fallbackText) : safeText(text, LIMITS.fallbackText),
    blocks: [section(body)],
  };
}

/** The thanks for a "Not helpful", with one click to say why (only the clicker sees it). */
export function notHelpfulMessage(stateKey: string): Message {
  const text = 'Thanks — noted as not helpful. What was wrong with it?';
  return {
    text,
    blocks: [
      section(text),
      {
        type: 'actions',
        block_id: 'ragask_feedback_reason',
        elements: FEEDBACK_REASONS.map((r) =>
          button(REASON_LABELS[r], `${ACTIONS.feedbackReason}_${r}`, JSON.stringify({ k: stateKey, r })),
        ),
      } satisfies ActionsBlock,
    ],
  };
}

/** The reason a "why" button carries, or null for a value it did not write. */
export function reasonOf(value: string): { stateKey: string; reason: FeedbackReason } | null {
  try {
    const v = JSON.parse(value) as { k?: unknown; r?: unknown };
    return typeof v.k === 'string' && (FEEDBACK_REASONS as readonly unknown[]).includes(v.r)
      ? { stateKey: v.k, reason: v.r as FeedbackReason }
      : null;
  } catch {
    return null;
  }
}

export function errorMessage(): Message {
  return noticeMessage('Something went wrong while answering; the error was logged. Please try again in a moment.');
}
