import { randomBytes } from 'node:crypto';
import { PG_SLACK_MIGRATIONS } from './schema.js';
import { inTransaction, migrate, type PgPool } from './db.js';
import { claimable, MAX_TURNS, OWNER, threadKey, type ClaimRow } from '../conversation-claims.js';
import {
  EVENT_LEASE_MS,
  QUESTION_RETENTION_MS,
  type AskedQuestion,
  type EventClaim,
  type FeedbackContext,
  type FeedbackReason,
  type FeedbackRow,
  type ConversationOptions,
  type ConversationStore,
  type StateRead,
  type ThreadState,
  type Turn,
  type ResultCodec,
} from '../conversation.js';
import {
  encodeTurns,
  toAskedQuestion,
  toFeedback,
  toStoredState,
  toTurns,
  type QuestionRow,
} from '../conversation-rows.js';

/**
 * The PostgreSQL backend of the SlackStateStore, in the store's database: every replica shares the
 * events ledger (each event claimed by one replica at a time, with a lease), the threads, the
 * button states (used once) and the feedback. Claims lock their row (SELECT … FOR UPDATE), so two
 * replicas never both find an event free.
 */
export class PgConversations<R> implements ConversationStore<R> {
  /** Events being answered by this process right now (a redelivery meanwhile is a duplicate). */
  private readonly inflight = new Set<string>();
  private readonly ready: Promise<number>;

  private readonly ttlMs: number;
  private readonly codec: ResultCodec<R>;
  private readonly now: () => number;
  private readonly owner: string;
  private readonly leaseMs: number;
  private readonly ownsConnection: boolean;

  constructor(
    private readonly pool: PgPool,
    opts: ConversationOptions<R>,
  ) {
    this.ttlMs = opts.ttlMs;
    this.codec = opts.codec;
    this.now = opts.now ?? Date.now;
    this.owner = opts.owner ?? OWNER;
    this.leaseMs = opts.leaseMs ?? EVENT_LEASE_MS;
    this.ownsConnection = opts.ownsConnection ?? false;
    this.ready = migrate(pool, 'slack', PG_SLACK_MIGRATIONS);
    // a failed migration surfaces at the first call that needs the tables
    this.ready.catch(() => undefined);
  }

  private async q<R extends object = Record<string, unknown>>(
    sql: string,
    params: unknown[] = [],
  ): Promise<{ rows: R[]; rowCount: number }> {
    await this.ready;
    const r = await this.pool.query<R>(sql, params);
    return { rows: r.rows, rowCount: r.rowCount ?? 0 };
  }

  async renewClaims(): Promise<void> {
    if (this.inflight.size === 0) return;
    await this.q(
      "UPDATE slack_events SET lease_until = $1 WHERE owner = $2 AND status = 'received' AND event_id = ANY($3::text[])",
      [this.now() + this.leaseMs, this.owner, [...this.inflight]],
    );
  }

  async claimEvent(
    eventId: string,
    channel: string | null,
    payload: unknown = null,
    staleMs = 10 * 60_000,
  ): Promise<EventClaim> {
    if (this.inflight.has(eventId)) return { status: 'duplicate' };
    await this.ready;
    const t = this.now();
    const claim = await inTransaction(this.pool, async (c): Promise<EventClaim> => {
      // a new event: inserted here, or by a replica racing for it (then its row is locked below)
      const inserted = await c.query(
        "INSERT INTO slack_events (event_id, status, channel, owner, payload, created_at, updated_at, attempts, lease_until) VALUES ($1, 'received', $2, $3, $4, $5, $5, 1, $6) ON CONFLICT (event_id) DO NOTHING",
        [eventId, channel, this.owner, payload === null ? null : JSON.stringify(payload), t, t + this.leaseMs],
      );
      if (inserted.rowCount === 1) return { status: 'new', messageTs: null, attempts: 1 };
      const row = (
        await c.query<ClaimRow & { status: string; answer_ts: string | null; attempts: number }>(
          'SELECT status, owner, answer_ts, updated_at, attempts, lease_until FROM slack_events WHERE event_id = $1 FOR UPDATE',
          [eventId],
        )
      ).rows[0];
      if (row && row.status === 'received' && claimable(row, this.owner, t, staleMs)) {
        await c.query(
          'UPDATE slack_events SET owner = $1, updated_at = $2, attempts = attempts + 1, lease_until = $3 WHERE event_id = $4',
          [this.owner, t, t + this.leaseMs, eventId],
        );
        return { status: 'new', messageTs: row.answer_ts, attempts: row.attempts + 1 };
      }
      return { status: 'duplicate' };
    });
    if (claim.status === 'new') this.inflight.add(eventId);
    return claim;
  }

  async recordDelivery(eventId: string, channel: string | null, raw: unknown): Promise<void> {
    const t = this.now();
    await this.q(
      "INSERT INTO slack_events (event_id, status, channel, owner, payload, created_at, updated_at) VALUES ($1, 'received', $2, NULL, $3, $4, $4) ON CONFLICT (event_id) DO NOTHING",
      [eventId, channel, JSON.stringify({ raw }), t],
    );
  }

  async ignoreEvent(eventId: string): Promise<void> {
    await this.q(
      "UPDATE slack_events SET status = 'ignored', updated_at = $1 WHERE event_id = $2 AND status = 'received' AND owner IS NULL",
      [this.now(), eventId],
    );
  }

  async setEventMessage(eventId: string, ts: string): Promise<void> {
    await this.q('UPDATE slack_events SET answer_ts = $1, updated_at = $2 WHERE event_id = $3', [
      ts,
      this.now(),
      eventId,
    ]);
  }

  async finishEvent(eventId: string, status: 'answered' | 'ignored', answerTs: string | null = null): Promise<void> {
    await this.q('UPDATE slack_events SET status = $1, answer_ts = $2, updated_at = $3 WHERE event_id = $4', [
      status,
      answerTs,
      this.now(),
      eventId,
    ]);
    this.inflight.delete(eventId);
  }

  async orphanedEvents(maxAgeMs = 3600_000, minIdleMs = 0): Promise<{ eventId: string; payload: unknown }[]> {
    const t = this.now();
    const rows = await this.q<ClaimRow & { event_id: string; payload: string }>(
      // the idle time doubles with each attempt already made (backoff), up to 64 times
      `SELECT event_id, owner, payload, lease_until, updated_at FROM slack_events
       WHERE status = 'received' AND payload IS NOT NULL AND created_at >= $1 AND updated_at <= $2 - $3::bigint * (1 << LEAST(GREATEST(attempts - 1, 0), 6))`,
      [t - maxAgeMs, t, minIdleMs],
    );
    return rows.rows
      .filter(
        (r) =>
          !this.inflight.has(r.event_id) &&
          r.owner !== this.owner &&
          claimable(r, this.owner, t, Number.POSITIVE_INFINITY),
      )
      .map((r) => ({ eventId: r.event_id, payload: JSON.parse(r.payload) as unknown }));
  }

  async releaseEvent(eventId: string): Promise<void> {
    this.inflight.delete(eventId);
    await this.q("UPDATE slack_events SET owner = NULL WHERE event_id = $1 AND status = 'received'", [eventId]);
  }

  async eventStatus(eventId: string): Promise<string | null> {
    return (
      (await this.q<{ status: string }>('SELECT status FROM slack_events WHERE event_id = $1', [eventId])).rows[0]
        ?.status ?? null
    );
  }

  async getThread(channel: string, threadTs: string): Promise<ThreadState<R> | null> {
    const row = (
      await this.q<{ participants: string; turns: string; expires_at: number }>(
        'SELECT participants, turns, expires_at FROM slack_threads WHERE key = $1',
        [threadKey(channel, threadTs)],
      )
    ).rows[0];
    if (!row || row.expires_at < this.now()) return null;
    return {
      channel,
      threadTs,
      participants: JSON.parse(row.participants) as string[],
      turns: toTurns(row.turns, this.codec),
    };
  }

  /** Records an answered turn; the row is locked while it is read and written, so replicas answering in one thread keep every turn. */
  async addTurn(channel: string, threadTs: string, turn: Omit<Turn<R>, 'at'>): Promise<ThreadState<R>> {
    await this.ready;
    const key = threadKey(channel, threadTs);
    return inTransaction(this.pool, async (c) => {
      const t = this.now();
      // make the row exist, then lock it: two first turns at once both land
      await c.query(
        "INSERT INTO slack_threads (key, channel, thread_ts, participants, turns, created_at, updated_at, expires_at) VALUES ($1, $2, $3, '[]', '[]', $4, $4, $5) ON CONFLICT (key) DO NOTHING",
        [key, channel, threadTs, t, t + this.ttlMs],
      );
      const row = (
        await c.query<{ participants: string; turns: string; expires_at: number }>(
          'SELECT participants, turns, expires_at FROM slack_threads WHERE key = $1 FOR UPDATE',
          [key],
        )
      ).rows[0]!;
      const live = row.expires_at >= t;
      const participants = [...new Set([...(live ? (JSON.parse(row.participants) as string[]) : []), turn.user])];
      const turns = [...(live ? toTurns(row.turns, this.codec) : []), { ...turn, at: t }].slice(-MAX_TURNS);
      await c.query(
        'UPDATE slack_threads SET participants = $1, turns = $2, updated_at = $3, expires_at = $4 WHERE key = $5',
        [JSON.stringify(participants), encodeTurns(turns, this.codec), t, t + this.ttlMs, key],
      );
      // a continued answer in the same message replaces the answer, not the question
      await c.query(
        `INSERT INTO slack_questions ("user", channel, thread_ts, message_ts, question, answer, asked_at) VALUES ($1, $2, $3, $4, $5, $6, $7)
         ON CONFLICT (channel, message_ts, "user") DO UPDATE SET answer = excluded.answer`,
        [turn.user, channel, threadTs, turn.messageTs, turn.question, this.codec.shortAnswer(turn.result), t],
      );
      return { channel, threadTs, participants, turns };
    });
  }

  async saveState(s: {
    channel: string;
    threadTs: string;
    messageTs: string;
    owner: string;
    result: R;
  }): Promise<string> {
    const t = this.now();
    // channel + thread + message, plus a random part so a key cannot be guessed from public ids
    const key = `${threadKey(s.channel, s.threadTs)}:${s.messageTs}:${randomBytes(6).toString('hex')}`;
    await this.q(
      'INSERT INTO slack_states (key, channel, thread_ts, message_ts, owner, result, created_at, expires_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)',
      [key, s.channel, s.threadTs, s.messageTs, s.owner, this.codec.encode(s.result), t, t + this.ttlMs],
    );
    return key;
  }

  async setStateMessage(key: string, messageTs: string): Promise<void> {
    await this.q('UPDATE slack_states SET message_ts = $1 WHERE key = $2', [messageTs, key]);
  }

  async getState(key: string): Promise<StateRead<R> | null> {
    const row = (await this.q('SELECT * FROM slack_states WHERE key = $1', [key])).rows[0];
    if (!row) return null;
    return toStoredState(key, row, this.now(), this.codec);
  }

  async unuseState(key: string): Promise<void> {
    await this.q('UPDATE slack_states SET used_at = NULL, used_by = NULL WHERE key = $1', [key]);
  }

  /** Marks a state used; false if it was already: the conditional UPDATE lets one click win across replicas. */
  async useState(key: string, user: string): Promise<boolean> {
    return (
      (
        await this.q('UPDATE slack_states SET used_at = $1, used_by = $2 WHERE key = $3 AND used_at IS NULL', [
          this.now(),
          user,
          key,
        ])
      ).rowCount === 1
    );
  }

  async setFeedbackReason(stateKey: string, user: string, reason: FeedbackReason): Promise<boolean> {
    const r = await this.q(
      `UPDATE feedback SET reason = $1 WHERE state_key = $2 AND "user" = $3 AND value = 'not_helpful'`,
      [reason, stateKey, user],
    );
    return r.rowCount === 1;
  }

  async addFeedback(f: Omit<FeedbackRow, 'id' | 'createdAt' | 'reason'>): Promise<boolean> {
    const r = await this.q(
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
        this.now(),
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
      await this.q(`SELECT * FROM feedback ${where} ORDER BY created_at DESC, id DESC LIMIT $1`, params)
    ).rows.map(toFeedback);
  }

  async prune(eventRetentionMs = 7 * 86400_000): Promise<number> {
    const t = this.now();
    let n = (await this.q('DELETE FROM slack_states WHERE expires_at < $1', [t])).rowCount;
    n += (await this.q('DELETE FROM slack_threads WHERE expires_at < $1', [t])).rowCount;
    // unanswered ones too, once they are far older than any redelivery or recovery
    n += (await this.q('DELETE FROM slack_events WHERE updated_at < $1', [t - eventRetentionMs])).rowCount;
    n += (await this.q('DELETE FROM slack_questions WHERE asked_at < $1', [t - QUESTION_RETENTION_MS])).rowCount;
    return n;
  }

  async recentQuestions(user: string, limit: number): Promise<AskedQuestion[]> {
    const feedback = (column: string) =>
      `(SELECT f.${column} FROM feedback f WHERE f.channel = q.channel AND f.message_ts = q.message_ts AND f."user" = q."user" ORDER BY f.id DESC LIMIT 1)`;
    return (
      await this.q<QuestionRow>(
        `SELECT q.channel, q.thread_ts, q.message_ts, q.question, q.answer, q.asked_at, ${feedback('value')} AS feedback, ${feedback('reason')} AS reason
         FROM slack_questions q WHERE q."user" = $1 ORDER BY q.asked_at DESC, q.id DESC LIMIT $2`,
        [user, limit],
      )
    ).rows.map(toAskedQuestion);
  }

  async close(): Promise<void> {
    if (this.ownsConnection) await this.pool.end();
  }
}
