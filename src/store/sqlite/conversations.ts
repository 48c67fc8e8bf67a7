import { randomBytes } from 'node:crypto';
import type { DB } from './db.js';
import { migrateConversations } from './schema.js';
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
 * The SQLite backend of the conversation store (the Slack app's state), in the same file as the
 * store (so it survives restarts and is backed up with it) but in its own tables, with its own
 * schema version, over its own connection: the document store knows nothing of it.
 */
export class SqliteConversations<R> implements ConversationStore<R> {
  /** Events being answered by this process right now (a redelivery meanwhile is a duplicate). */
  private readonly inflight = new Set<string>();

  private readonly ttlMs: number;
  private readonly codec: ResultCodec<R>;
  private readonly now: () => number;
  private readonly owner: string;
  private readonly leaseMs: number;
  private readonly ownsConnection: boolean;

  constructor(
    readonly db: DB,
    opts: ConversationOptions<R>,
  ) {
    this.ttlMs = opts.ttlMs;
    this.codec = opts.codec;
    this.now = opts.now ?? Date.now;
    this.owner = opts.owner ?? OWNER;
    this.leaseMs = opts.leaseMs ?? EVENT_LEASE_MS;
    this.ownsConnection = opts.ownsConnection ?? false;
    migrateConversations(this.db);
  }

  /**
   * Whether a received event's claim may be taken: nobody holds it, this owner does, its lease has
   * lapsed, its owner is a process of this machine that is gone, or (a claim from before leases)
   * it has not moved for `staleMs`.
   */
  private claimable(row: ClaimRow, t: number, staleMs: number): boolean {
    return claimable(row, this.owner, t, staleMs);
  }

  /** Renews the leases of the events this owner is answering (called every EVENT_LEASE_MS / 3). */
  async renewClaims(): Promise<void> {
    if (this.inflight.size === 0) return;
    this.db
      .prepare(
        "UPDATE slack_events SET lease_until = ? WHERE owner = ? AND status = 'received' AND event_id IN (SELECT value FROM json_each(?))",
      )
      .run(this.now() + this.leaseMs, this.owner, JSON.stringify([...this.inflight]));
  }

  /**
   * Claims an event id. A second delivery (Slack retries, X-Slack-Retry-Num) is a duplicate while
   * the first is being answered or once it was. An event received by a process that has died since
   * (killed while answering) is claimed again, so it is answered once, not never; the placeholder
   * that process already posted is reused rather than posting a second message.
   */
  async claimEvent(
    eventId: string,
    channel: string | null,
    payload: unknown = null,
    staleMs = 10 * 60_000,
  ): Promise<EventClaim> {
    if (this.inflight.has(eventId)) return { status: 'duplicate' };
    const t = this.now();
    // immediate: the row is read and written under the write lock, so two processes sharing the
    // ledger cannot both find it free (a deferred transaction would fail its upgrade instead)
    const claim = this.db
      .transaction((): EventClaim => {
        const row = this.db
          .prepare(
            'SELECT status, owner, answer_ts, updated_at, attempts, lease_until FROM slack_events WHERE event_id = ?',
          )
          .get(eventId) as
          | {
              status: string;
              owner: string | null;
              answer_ts: string | null;
              updated_at: number;
              attempts: number;
              lease_until: number | null;
            }
          | undefined;
        if (!row) {
          this.db
            .prepare(
              "INSERT INTO slack_events (event_id, status, channel, owner, payload, created_at, updated_at, attempts, lease_until) VALUES (?, 'received', ?, ?, ?, ?, ?, 1, ?)",
            )
            .run(
              eventId,
              channel,
              this.owner,
              payload === null ? null : JSON.stringify(payload),
              t,
              t,
              t + this.leaseMs,
            );
          return { status: 'new', messageTs: null, attempts: 1 };
        }
        if (row.status === 'received' && this.claimable(row, t, staleMs)) {
          this.db
            .prepare(
              'UPDATE slack_events SET owner = ?, updated_at = ?, attempts = attempts + 1, lease_until = ? WHERE event_id = ?',
            )
            .run(this.owner, t, t + this.leaseMs, eventId);
          return { status: 'new', messageTs: row.answer_ts, attempts: row.attempts + 1 };
        }
        return { status: 'duplicate' };
      })
      .immediate();
    if (claim.status === 'new') this.inflight.add(eventId);
    return claim;
  }

  /**
   * Records a delivery before it is acknowledged (see delivery.ts), owned by nobody until a
   * listener claims it. A redelivery of a recorded event changes nothing.
   */
  async recordDelivery(eventId: string, channel: string | null, raw: unknown): Promise<void> {
    const t = this.now();
    this.db
      .prepare(
        "INSERT OR IGNORE INTO slack_events (event_id, status, channel, owner, payload, created_at, updated_at) VALUES (?, 'received', ?, NULL, ?, ?, ?)",
      )
      .run(eventId, channel, JSON.stringify({ raw }), t, t);
  }

  /** A recorded delivery the listeners left alone (not a question for ragask): never replayed. */
  async ignoreEvent(eventId: string): Promise<void> {
    this.db
      .prepare(
        "UPDATE slack_events SET status = 'ignored', updated_at = ? WHERE event_id = ? AND status = 'received' AND owner IS NULL",
      )
      .run(this.now(), eventId);
  }

  /** Remembers the message posted for an event before it is answered (for a restart to reuse). */
  async setEventMessage(eventId: string, ts: string): Promise<void> {
    this.db
      .prepare('UPDATE slack_events SET answer_ts = ?, updated_at = ? WHERE event_id = ?')
      .run(ts, this.now(), eventId);
  }

  async finishEvent(eventId: string, status: 'answered' | 'ignored', answerTs: string | null = null): Promise<void> {
    this.db
      .prepare('UPDATE slack_events SET status = ?, answer_ts = ?, updated_at = ? WHERE event_id = ?')
      .run(status, answerTs, this.now(), eventId);
    this.inflight.delete(eventId);
  }

  /**
   * Events received by a process that died before answering them, with what is needed to answer
   * them now (Slack does not redeliver an event that was acknowledged). Only recent ones: an answer
   * hours late would surprise more than help, and a question that keeps failing is not retried at
   * every start forever. `minIdleMs` leaves alone a row touched that recently (a delivery this
   * process recorded and is about to claim), doubled for each further attempt already made.
   */
  async orphanedEvents(maxAgeMs = 3600_000, minIdleMs = 0): Promise<{ eventId: string; payload: unknown }[]> {
    const t = this.now();
    const rows = this.db
      // the idle time doubles with each attempt already made (backoff), up to 64 times
      .prepare(
        "SELECT event_id, owner, payload, lease_until, updated_at FROM slack_events WHERE status = 'received' AND payload IS NOT NULL AND created_at >= ? AND updated_at <= ? - ? * (1 << MIN(MAX(attempts - 1, 0), 6))",
      )
      .all(t - maxAgeMs, t, minIdleMs) as {
      event_id: string;
      owner: string | null;
      payload: string;
      lease_until: number | null;
      updated_at: number;
    }[];
    // held by nobody (recorded, never claimed), or by an owner that is gone or whose lease lapsed;
    // not by this owner, which is answering them
    return rows
      .filter(
        (r) =>
          !this.inflight.has(r.event_id) && r.owner !== this.owner && this.claimable(r, t, Number.POSITIVE_INFINITY),
      )
      .map((r) => ({ eventId: r.event_id, payload: JSON.parse(r.payload) as unknown }));
  }

  /** Lets a redelivery or a restart answer an event whose handling failed before it was answered. */
  async releaseEvent(eventId: string): Promise<void> {
    this.inflight.delete(eventId);
    this.db.prepare("UPDATE slack_events SET owner = NULL WHERE event_id = ? AND status = 'received'").run(eventId);
  }

  async eventStatus(eventId: string): Promise<string | null> {
    const row = this.db.prepare('SELECT status FROM slack_events WHERE event_id = ?').get(eventId) as
      { status: string } | undefined;
    return row?.status ?? null;
  }

  async getThread(channel: string, threadTs: string): Promise<ThreadState<R> | null> {
    return this.getThreadNow(channel, threadTs);
  }

  private getThreadNow(channel: string, threadTs: string): ThreadState<R> | null {
    const row = this.db
      .prepare('SELECT participants, turns, expires_at FROM slack_threads WHERE key = ?')
      .get(threadKey(channel, threadTs)) as { participants: string; turns: string; expires_at: number } | undefined;
    if (!row || row.expires_at < this.now()) return null;
    return {
      channel,
      threadTs,
      participants: JSON.parse(row.participants) as string[],
      turns: toTurns(row.turns, this.codec),
    };
  }

  /** Records an answered turn of a thread; the asker becomes a participant. */
  async addTurn(channel: string, threadTs: string, turn: Omit<Turn<R>, 'at'>): Promise<ThreadState<R>> {
    // read and written under the write lock: replicas answering in one thread keep every turn
    return this.db.transaction(() => this.addTurnNow(channel, threadTs, turn)).immediate();
  }

  private addTurnNow(channel: string, threadTs: string, turn: Omit<Turn<R>, 'at'>): ThreadState<R> {
    const t = this.now();
    const prev = this.getThreadNow(channel, threadTs);
    const participants = [...new Set([...(prev?.participants ?? []), turn.user])];
    const turns = [...(prev?.turns ?? []), { ...turn, at: t }].slice(-MAX_TURNS);
    // a continued answer in the same message replaces the answer, not the question
    this.db
      .prepare(
        `INSERT INTO slack_questions (user, channel, thread_ts, message_ts, question, answer, asked_at) VALUES (?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT(channel, message_ts, user) DO UPDATE SET answer = excluded.answer`,
      )
      .run(turn.user, channel, threadTs, turn.messageTs, turn.question, this.codec.shortAnswer(turn.result), t);
    this.db
      .prepare(
        `INSERT INTO slack_threads (key, channel, thread_ts, participants, turns, created_at, updated_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT(key) DO UPDATE SET participants = excluded.participants, turns = excluded.turns, updated_at = excluded.updated_at, expires_at = excluded.expires_at`,
      )
      .run(
        threadKey(channel, threadTs),
        channel,
        threadTs,
        JSON.stringify(participants),
        encodeTurns(turns, this.codec),
        t,
        t,
        t + this.ttlMs,
      );
    return { channel, threadTs, participants, turns };
  }

  /** Stores the engine state behind an answer message; the key goes into its buttons. */
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
    this.db
      .prepare(
        'INSERT INTO slack_states (key, channel, thread_ts, message_ts, owner, result, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
      )
      .run(key, s.channel, s.threadTs, s.messageTs, s.owner, this.codec.encode(s.result), t, t + this.ttlMs);
    return key;
  }

  /** The message a state belongs to, once posted. */
  async setStateMessage(key: string, messageTs: string): Promise<void> {
    this.db.prepare('UPDATE slack_states SET message_ts = ? WHERE key = ?').run(messageTs, key);
  }

  async getState(key: string): Promise<StateRead<R> | null> {
    const row = this.db.prepare('SELECT * FROM slack_states WHERE key = ?').get(key) as
      Record<string, unknown> | undefined;
    if (!row) return null;
    return toStoredState(key, row, this.now(), this.codec);
  }

  /** Makes a state usable again (its continuation failed, so the buttons stay). */
  async unuseState(key: string): Promise<void> {
    this.db.prepare('UPDATE slack_states SET used_at = NULL, used_by = NULL WHERE key = ?').run(key);
  }

  /** Marks a state used; false if it was already (two clicks racing: only one wins). */
  async useState(key: string, user: string): Promise<boolean> {
    return (
      this.db
        .prepare('UPDATE slack_states SET used_at = ?, used_by = ? WHERE key = ? AND used_at IS NULL')
        .run(this.now(), user, key).changes === 1
    );
  }

  /** One entry per answer and person; clicking again changes it. */
  async setFeedbackReason(stateKey: string, user: string, reason: FeedbackReason): Promise<boolean> {
    return (
      this.db
        .prepare("UPDATE feedback SET reason = ? WHERE state_key = ? AND user = ? AND value = 'not_helpful'")
        .run(reason, stateKey, user).changes === 1
    );
  }

  async addFeedback(f: Omit<FeedbackRow, 'id' | 'createdAt' | 'reason'>): Promise<boolean> {
    const r = this.db
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
        this.now(),
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
      this.db
        .prepare(`SELECT * FROM feedback ${where} ORDER BY created_at DESC, id DESC LIMIT @limit`)
        .all({ ...params, limit }) as Record<string, unknown>[]
    ).map(toFeedback);
  }

  /** Deletes expired states and threads and old event ids; returns how many rows went. */
  async prune(eventRetentionMs = 7 * 86400_000): Promise<number> {
    const t = this.now();
    let n = this.db.prepare('DELETE FROM slack_states WHERE expires_at < ?').run(t).changes;
    n += this.db.prepare('DELETE FROM slack_threads WHERE expires_at < ?').run(t).changes;
    // unanswered ones too, once they are far older than any redelivery or recovery
    n += this.db.prepare('DELETE FROM slack_events WHERE updated_at < ?').run(t - eventRetentionMs).changes;
    n += this.db.prepare('DELETE FROM slack_questions WHERE asked_at < ?').run(t - QUESTION_RETENTION_MS).changes;
    return n;
  }

  async recentQuestions(user: string, limit: number): Promise<AskedQuestion[]> {
    const rows = this.db
      .prepare(
        `SELECT q.channel, q.thread_ts, q.message_ts, q.question, q.answer, q.asked_at,
                (SELECT f.value FROM feedback f WHERE f.channel = q.channel AND f.message_ts = q.message_ts AND f.user = q.user ORDER BY f.id DESC LIMIT 1) AS feedback,
                (SELECT f.reason FROM feedback f WHERE f.channel = q.channel AND f.message_ts = q.message_ts AND f.user = q.user ORDER BY f.id DESC LIMIT 1) AS reason
         FROM slack_questions q WHERE q.user = ? ORDER BY q.asked_at DESC, q.id DESC LIMIT ?`,
      )
      .all(user, limit) as QuestionRow[];
    return rows.map(toAskedQuestion);
  }

  async close(): Promise<void> {
    if (this.ownsConnection) this.db.close();
  }
}
