import { inTransaction } from './db.js';
import { MAX_TURNS, threadKey } from '../conversation-claims.js';
import type { AskedQuestion, ThreadStore, ThreadState, Turn } from '../conversation.js';
import { encodeTurns, toAskedQuestion, toTurns, type QuestionRow } from '../conversation-rows.js';
import type { PgConversationContext } from './conversation-context.js';

export class PgThreads<R> implements ThreadStore<R> {
  constructor(private readonly ctx: PgConversationContext<R>) {}

  async getThread(channel: string, threadTs: string): Promise<ThreadState<R> | null> {
    const row = (
      await this.ctx.q<{ participants: string; turns: string; expires_at: number }>(
        'SELECT participants, turns, expires_at FROM slack_threads WHERE key = $1',
        [threadKey(channel, threadTs)],
      )
    ).rows[0];
    if (!row || row.expires_at < this.ctx.now()) return null;
    return {
      channel,
      threadTs,
      participants: JSON.parse(row.participants) as string[],
      turns: toTurns(row.turns, this.ctx.codec),
    };
  }

  /** Records an answered turn; the row is locked while it is read and written, so replicas answering in one thread keep every turn. */
  async addTurn(channel: string, threadTs: string, turn: Omit<Turn<R>, 'at'>): Promise<ThreadState<R>> {
    await this.ctx.ready;
    const key = threadKey(channel, threadTs);
    return inTransaction(this.ctx.pool, async (c) => {
      const t = this.ctx.now();
      // make the row exist, then lock it: two first turns at once both land
      await c.query(
        "INSERT INTO slack_threads (key, channel, thread_ts, participants, turns, created_at, updated_at, expires_at) VALUES ($1, $2, $3, '[]', '[]', $4, $4, $5) ON CONFLICT (key) DO NOTHING",
        [key, channel, threadTs, t, t + this.ctx.ttlMs],
      );
      const row = (
        await c.query<{ participants: string; turns: string; expires_at: number }>(
          'SELECT participants, turns, expires_at FROM slack_threads WHERE key = $1 FOR UPDATE',
          [key],
        )
      ).rows[0]!;
      const live = row.expires_at >= t;
      const participants = [...new Set([...(live ? (JSON.parse(row.participants) as string[]) : []), turn.user])];
      const turns = [...(live ? toTurns(row.turns, this.ctx.codec) : []), { ...turn, at: t }].slice(-MAX_TURNS);
      await c.query(
        'UPDATE slack_threads SET participants = $1, turns = $2, updated_at = $3, expires_at = $4 WHERE key = $5',
        [JSON.stringify(participants), encodeTurns(turns, this.ctx.codec), t, t + this.ctx.ttlMs, key],
      );
      // a continued answer in the same message replaces the answer, not the question
      await c.query(
        `INSERT INTO slack_questions ("user", channel, thread_ts, message_ts, question, answer, asked_at) VALUES ($1, $2, $3, $4, $5, $6, $7)
         ON CONFLICT (channel, message_ts, "user") DO UPDATE SET answer = excluded.answer`,
        [turn.user, channel, threadTs, turn.messageTs, turn.question, this.ctx.codec.shortAnswer(turn.result), t],
      );
      return { channel, threadTs, participants, turns };
    });
  }

  async recentQuestions(user: string, limit: number): Promise<AskedQuestion[]> {
    const feedback = (column: string) =>
      `(SELECT f.${column} FROM feedback f WHERE f.channel = q.channel AND f.message_ts = q.message_ts AND f."user" = q."user" ORDER BY f.id DESC LIMIT 1)`;
    return (
      await this.ctx.q<QuestionRow>(
        `SELECT q.channel, q.thread_ts, q.message_ts, q.question, q.answer, q.asked_at, ${feedback('value')} AS feedback, ${feedback('reason')} AS reason
         FROM slack_questions q WHERE q."user" = $1 ORDER BY q.asked_at DESC, q.id DESC LIMIT $2`,
        [user, limit],
      )
    ).rows.map(toAskedQuestion);
  }

  async questionsSince(since: number, limit: number): Promise<(AskedQuestion & { user: string })[]> {
    const feedback = (column: string) =>
      `(SELECT f.${column} FROM feedback f WHERE f.channel = q.channel AND f.message_ts = q.message_ts AND f."user" = q."user" ORDER BY f.id DESC LIMIT 1)`;
    return (
      await this.ctx.q<QuestionRow & { user: string }>(
        `SELECT q."user", q.channel, q.thread_ts, q.message_ts, q.question, q.answer, q.asked_at, ${feedback('value')} AS feedback, ${feedback('reason')} AS reason
         FROM slack_questions q WHERE q.asked_at >= $1 ORDER BY q.asked_at DESC, q.id DESC LIMIT $2`,
        [since, limit],
      )
    ).rows.map((r) => ({ ...toAskedQuestion(r), user: r.user }));
  }
}
