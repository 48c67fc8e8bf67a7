/** Rows of the conversation tables as both SQL backends return them (the same columns in each). */
import {
  FEEDBACK_REASONS,
  type AskedQuestion,
  type FeedbackReason,
  type FeedbackRow,
  type StateRead,
  type Turn,
  type ResultCodec,
} from './conversation.js';

/**
 * A slack_states row; `expired` against the store's clock, and also when its result is of another
 * version or does not parse (a replica running other code wrote it): never cast into shape.
 */
export function toStoredState<R>(
  key: string,
  row: Record<string, unknown>,
  now: number,
  codec: ResultCodec<R>,
): StateRead<R> {
  const fields = {
    key,
    channel: row.channel as string,
    threadTs: row.thread_ts as string,
    messageTs: row.message_ts as string,
    owner: row.owner as string,
    expiresAt: row.expires_at as number,
    usedAt: (row.used_at as number | null) ?? null,
    usedBy: (row.used_by as string | null) ?? null,
  };
  const result = codec.decode(row.result as string);
  if (result === null || fields.expiresAt < now) return { ...fields, result: null, expired: true };
  return { ...fields, result, expired: false };
}

/** A thread's turns as stored: each turn's result with its version. */
export function encodeTurns<R>(turns: readonly Turn<R>[], codec: ResultCodec<R>): string {
  return JSON.stringify(turns.map((t) => ({ ...t, result: codec.encode(t.result) })));
}

/** A thread's stored turns; a turn whose result cannot be read (another version) is left out. */
export function toTurns<R>(text: string, codec: ResultCodec<R>): Turn<R>[] {
  const raw = JSON.parse(text) as (Omit<Turn<R>, 'result'> & { result: unknown })[];
  const out: Turn<R>[] = [];
  for (const t of raw) {
    const result = typeof t.result === 'string' ? codec.decode(t.result) : null;
    if (result) out.push({ ...t, result });
  }
  return out;
}

export function toFeedback(r: Record<string, unknown>): FeedbackRow {
  return {
    id: r.id as number,
    stateKey: r.state_key as string,
    channel: r.channel as string,
    threadTs: (r.thread_ts as string | null) ?? null,
    messageTs: r.message_ts as string,
    user: r.user as string,
    value: r.value as 'helpful' | 'not_helpful',
    reason: (FEEDBACK_REASONS as readonly unknown[]).includes(r.reason) ? (r.reason as FeedbackReason) : null,
    question: r.question as string,
    answer: r.answer as string,
    evidence: JSON.parse(r.evidence as string) as number[],
    createdAt: r.created_at as number,
  };
}

/** A row of slack_questions with its asker's latest feedback on the answer (both backends' column names). */
export interface QuestionRow {
  channel: string;
  thread_ts: string;
  message_ts: string;
  question: string;
  answer: string | null;
  asked_at: number;
  feedback: string | null;
  reason: string | null;
}

export function toAskedQuestion(r: QuestionRow): AskedQuestion {
  return {
    channel: r.channel,
    threadTs: r.thread_ts,
    messageTs: r.message_ts,
    question: r.question,
    answer: r.answer ?? null,
    askedAt: Number(r.asked_at),
    feedback:
      r.feedback === 'helpful' || r.feedback === 'not_helpful'
        ? {
            value: r.feedback,
            reason: (FEEDBACK_REASONS as readonly unknown[]).includes(r.reason) ? (r.reason as FeedbackReason) : null,
          }
        : null,
  };
}
