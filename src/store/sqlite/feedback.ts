import type { FeedbackContext, FeedbackReason, FeedbackRow, FeedbackStore } from '../conversation.js';
import { toFeedback } from '../conversation-rows.js';
import type { SqliteConversationContext } from './conversation-context.js';

export class SqliteFeedback implements FeedbackStore {
  constructor(private readonly ctx: SqliteConversationContext<unknown>) {}

  /** One entry per answer and person; clicking again changes it. */
  async setFeedbackReason(stateKey: string, user: string, reason: FeedbackReason): Promise<boolean> {
    return (
      this.ctx.db
        .prepare("UPDATE feedback SET reason = ? WHERE state_key = ? AND user = ? AND value = 'not_helpful'")
        .run(reason, stateKey, user).changes === 1
    );
  }

  async addFeedback(f: Omit<FeedbackRow, 'id' | 'createdAt' | 'reason'>): Promise<boolean> {
    const r = this.ctx.db
      .prepare(
        `INSERT INTO feedback (state_key, channel, thread_ts, message_ts, user, value, question, answer, evidence, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT(state_key, user) DO UPDATE SET value = excluded.value, question = excluded.question, answer = excluded.answer,
           evidence = excluded.evidence, created_at = excluded.created_at, reason = NULL`,
      )
      .run(
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
      );
    return r.changes === 1;
  }

  /**
   * Feedback, newest first: every entry, or only those given in one context — a channel, or a
   * user's direct messages with ragask (an entry belongs to the context it was given in).
   */
  async listFeedback(limit = 100, givenIn: FeedbackContext | null = null): Promise<FeedbackRow[]> {
    const where =
      givenIn === null
        ? ''
        : 'channel' in givenIn
          ? 'WHERE channel = @channel'
          : "WHERE user = @user AND channel LIKE 'D%'";
    const params = givenIn === null ? {} : 'channel' in givenIn ? { channel: givenIn.channel } : { user: givenIn.dmOf };
    return (
      this.ctx.db
        .prepare(`SELECT * FROM feedback ${where} ORDER BY created_at DESC, id DESC LIMIT @limit`)
        .all({ ...params, limit }) as Record<string, unknown>[]
    ).map(toFeedback);
  }
}
