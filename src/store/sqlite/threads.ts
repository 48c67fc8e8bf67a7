import { MAX_TURNS, threadKey } from '../conversation-claims.js';
import type { AskedQuestion, ThreadStore, ThreadState, Turn } from '../conversation.js';
import { encodeTurns, toAskedQuestion, toTurns, type QuestionRow } from '../conversation-rows.js';
import type { SqliteConversationContext } from './conversation-context.js';

export class SqliteThreads<R> implements ThreadStore<R> {
  constructor(private readonly ctx: SqliteConversationContext<R>) {}

  async getThread(channel: string, threadTs: string): Promise<ThreadState<R> | null> {
    return this.getThreadNow(channel, threadTs);
  }

  private getThreadNow(channel: string, threadTs: string): ThreadState<R> | null {
    const row = this.ctx.db
      .prepare('SELECT participants, turns, expires_at FROM slack_threads WHERE key = ?')
      .get(threadKey(channel, threadTs)) as { participants: string; turns: string; expires_at: number } | undefined;
    if (!row || row.expires_at < this.ctx.now()) return null;
    return {
      channel,
      threadTs,
      participants: JSON.parse(row.participants) as string[],
      turns: toTurns(row.turns, this.ctx.codec),
    };
  }

  /** Records an answered turn of a thread; the asker becomes a participant. */
  async addTurn(channel: string, threadTs: string, turn: Omit<Turn<R>, 'at'>): Promise<ThreadState<R>> {
    // read and written under the write lock: replicas answering in one thread keep every turn
    return this.ctx.db.transaction(() => this.addTurnNow(channel, threadTs, turn)).immediate();
  }

  private addTurnNow(channel: string, threadTs: string, turn: Omit<Turn<R>, 'at'>): ThreadState<R> {
    const t = this.ctx.now();
    const prev = this.getThreadNow(channel, threadTs);
    const participants = [...new Set([...(prev?.participants ?? []), turn.user])];
    const turns = [...(prev?.turns ?? []), { ...turn, at: t }].slice(-MAX_TURNS);
    // a continued answer in the same message replaces the answer, not the question
    this.ctx.db
      .prepare(
        `INSERT INTO slack_questions (user, channel, thread_ts, message_ts, question, answer, asked_at) VALUES (?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT(channel, message_ts, user) DO UPDATE SET answer = excluded.answer`,
      )
      .run(turn.user, channel, threadTs, turn.messageTs, turn.question, this.ctx.codec.shortAnswer(turn.result), t);
    this.ctx.db
      .prepare(
        `INSERT INTO slack_threads (key, channel, thread_ts, participants, turns, created_at, updated_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT(key) DO UPDATE SET participants = excluded.participants, turns = excluded.turns, updated_at = excluded.updated_at, expires_at = excluded.expires_at`,
      )
      .run(
        threadKey(channel, threadTs),
        channel,
        threadTs,
        JSON.stringify(participants),
        encodeTurns(turns, this.ctx.codec),
        t,
        t,
        t + this.ctx.ttlMs,
      );
    return { channel, threadTs, participants, turns };
  }

  async recentQuestions(user: string, limit: number): Promise<AskedQuestion[]> {
    const rows = this.ctx.db
      .prepare(
        `SELECT q.channel, q.thread_ts, q.message_ts, q.question, q.answer, q.asked_at,
                (SELECT f.value FROM feedback f WHERE f.channel = q.channel AND f.message_ts = q.message_ts AND f.user = q.user ORDER BY f.id DESC LIMIT 1) AS feedback,
                (SELECT f.reason FROM feedback f WHERE f.channel = q.channel AND f.message_ts = q.message_ts AND f.user = q.user ORDER BY f.id DESC LIMIT 1) AS reason
         FROM slack_questions q WHERE q.user = ? ORDER BY q.asked_at DESC, q.id DESC LIMIT ?`,
      )
      .all(user, limit) as QuestionRow[];
    return rows.map(toAskedQuestion);
  }

  async questionsSince(since: number, limit: number): Promise<(AskedQuestion & { user: string })[]> {
    const rows = this.ctx.db
      .prepare(
        `SELECT q.user, q.channel, q.thread_ts, q.message_ts, q.question, q.answer, q.asked_at,
                (SELECT f.value FROM feedback f WHERE f.channel = q.channel AND f.message_ts = q.message_ts AND f.user = q.user ORDER BY f.id DESC LIMIT 1) AS feedback,
                (SELECT f.reason FROM feedback f WHERE f.channel = q.channel AND f.message_ts = q.message_ts AND f.user = q.user ORDER BY f.id DESC LIMIT 1) AS reason
         FROM slack_questions q WHERE q.asked_at >= ? ORDER BY q.asked_at DESC, q.id DESC LIMIT ?`,
      )
      .all(since, limit) as (QuestionRow & { user: string })[];
    return rows.map((r) => ({ ...toAskedQuestion(r), user: r.user }));
  }
}
