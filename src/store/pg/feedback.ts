import type { FeedbackContext, FeedbackReason, FeedbackRow, FeedbackStore } from '../conversation.js';
import { toFeedback } from '../conversation-rows.js';
import type { PgConversationContext } from './conversation-context.js';

export class PgFeedback implements FeedbackStore {
  constructor(private readonly ctx: PgConversationContext<unknown>) {}

  async setFeedbackReason(stateKey: string, user: string, reason: FeedbackReason): Promise<boolean> {
    const r = await this.ctx.q(
      `UPDATE feedback SET reason = $1 WHERE state_key = $2 AND "user" = $3 AND value = 'not_helpful'`,
      [reason, stateKey, user],
    );
    return r.rowCount === 1;
  }

  async addFeedback(f: Omit<FeedbackRow, 'id' | 'createdAt' | 'reason'>): Promise<boolean> {
    const r = await this.ctx.q(
      `INSERT INTO feedback (state_key, channel, thread_ts, message_ts, "user", value, question, answer, evidence, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
       ON CONFLICT (state_key, "user") DO UPDATE SET value = excluded.value, question = excluded.question, answer = excluded.answer, evidence = excluded.evidence, created_at = excluded.created_at, reason = NULL`,
      [
        f.stateKey,
        f.channel,
        f.threadTs,
        f.messageTs,
        f.user,
        f.value,
        f.question,
        f.answer,
        JSON.stringify(f.evidence),
        this.ctx.now(),
      ],
    );
    return r.rowCount === 1;
  }

  async listFeedback(limit = 100, givenIn: FeedbackContext | null = null): Promise<FeedbackRow[]> {
    const where =
      givenIn === null ? '' : 'channel' in givenIn ? 'WHERE channel = $2' : 'WHERE "user" = $2 AND channel LIKE \'D%\'';
    const params: unknown[] =
      givenIn === null ? [limit] : [limit, 'channel' in givenIn ? givenIn.channel : givenIn.dmOf];
    return (
      await this.ctx.q(`SELECT * FROM feedback ${where} ORDER BY created_at DESC, id DESC LIMIT $1`, params)
    ).rows.map(toFeedback);
  }
}
