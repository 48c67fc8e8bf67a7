import type { EventClaim, EventLedger } from '../conversation.js';
import type { SqliteConversationContext } from './conversation-context.js';

export class SqliteEventLedger implements EventLedger {
  constructor(private readonly ctx: SqliteConversationContext<unknown>) {}

  /** Renews the leases of the events this owner is answering (called every EVENT_LEASE_MS / 3). */
  async renewClaims(): Promise<void> {
    if (this.ctx.inflight.size === 0) return;
    this.ctx.db
      .prepare(
        "UPDATE slack_events SET lease_until = ? WHERE owner = ? AND status = 'received' AND event_id IN (SELECT value FROM json_each(?))",
      )
      .run(this.ctx.now() + this.ctx.leaseMs, this.ctx.owner, JSON.stringify([...this.ctx.inflight]));
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
    if (this.ctx.inflight.has(eventId)) return { status: 'duplicate' };
    const t = this.ctx.now();
    // immediate: the row is read and written under the write lock, so two processes sharing the
    // ledger cannot both find it free (a deferred transaction would fail its upgrade instead)
    const claim = this.ctx.db
      .transaction((): EventClaim => {
        const row = this.ctx.db
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
          this.ctx.db
            .prepare(
              "INSERT INTO slack_events (event_id, status, channel, owner, payload, created_at, updated_at, attempts, lease_until) VALUES (?, 'received', ?, ?, ?, ?, ?, 1, ?)",
            )
            .run(
              eventId,
              channel,
              this.ctx.owner,
              payload === null ? null : JSON.stringify(payload),
              t,
              t,
              t + this.ctx.leaseMs,
            );
          return { status: 'new', messageTs: null, attempts: 1 };
        }
        if (row.status === 'received' && this.ctx.claimable(row, t, staleMs)) {
          this.ctx.db
            .prepare(
              'UPDATE slack_events SET owner = ?, updated_at = ?, attempts = attempts + 1, lease_until = ? WHERE event_id = ?',
            )
            .run(this.ctx.owner, t, t + this.ctx.leaseMs, eventId);
          return { status: 'new', messageTs: row.answer_ts, attempts: row.attempts + 1 };
        }
        return { status: 'duplicate' };
      })
      .immediate();
    if (claim.status === 'new') this.ctx.inflight.add(eventId);
    return claim;
  }

  /**
   * Records a delivery before it is acknowledged (see delivery.ts), owned by nobody until a
   * listener claims it. A redelivery of a recorded event changes nothing.
   */
  async recordDelivery(eventId: string, channel: string | null, raw: unknown): Promise<void> {
    const t = this.ctx.now();
    this.ctx.db
      .prepare(
        "INSERT OR IGNORE INTO slack_events (event_id, status, channel, owner, payload, created_at, updated_at) VALUES (?, 'received', ?, NULL, ?, ?, ?)",
      )
      .run(eventId, channel, JSON.stringify({ raw }), t, t);
  }

  /** A recorded delivery the listeners left alone (not a question for ragask): never replayed. */
  async ignoreEvent(eventId: string): Promise<void> {
    this.ctx.db
      .prepare(
        "UPDATE slack_events SET status = 'ignored', updated_at = ? WHERE event_id = ? AND status = 'received' AND owner IS NULL",
      )
      .run(this.ctx.now(), eventId);
  }

  /** Remembers the message posted for an event before it is answered (for a restart to reuse). */
  async setEventMessage(eventId: string, ts: string): Promise<void> {
    this.ctx.db
      .prepare('UPDATE slack_events SET answer_ts = ?, updated_at = ? WHERE event_id = ?')
      .run(ts, this.ctx.now(), eventId);
  }

  async finishEvent(eventId: string, status: 'answered' | 'ignored', answerTs: string | null = null): Promise<void> {
    this.ctx.db
      .prepare('UPDATE slack_events SET status = ?, answer_ts = ?, updated_at = ? WHERE event_id = ?')
      .run(status, answerTs, this.ctx.now(), eventId);
    this.ctx.inflight.delete(eventId);
  }

  /**
   * Events received by a process that died before answering them, with what is needed to answer
   * them now (Slack does not redeliver an event that was acknowledged). Only recent ones: an answer
   * hours late would surprise more than help, and a question that keeps failing is not retried at
   * every start forever. `minIdleMs` leaves alone a row touched that recently (a delivery this
   * process recorded and is about to claim), doubled for each further attempt already made.
   */
  async orphanedEvents(maxAgeMs = 3600_000, minIdleMs = 0): Promise<{ eventId: string; payload: unknown }[]> {
    const t = this.ctx.now();
    const rows = this.ctx.db
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
          !this.ctx.inflight.has(r.event_id) &&
          r.owner !== this.ctx.owner &&
          this.ctx.claimable(r, t, Number.POSITIVE_INFINITY),
      )
      .map((r) => ({ eventId: r.event_id, payload: JSON.parse(r.payload) as unknown }));
  }

  /** Lets a redelivery or a restart answer an event whose handling failed before it was answered. */
  async releaseEvent(eventId: string): Promise<void> {
    this.ctx.inflight.delete(eventId);
    this.ctx.db.prepare("UPDATE slack_events SET owner = NULL WHERE event_id = ? AND status = 'received'").run(eventId);
  }

  async eventStatus(eventId: string): Promise<string | null> {
    const row = this.ctx.db.prepare('SELECT status FROM slack_events WHERE event_id = ?').get(eventId) as
      { status: string } | undefined;
    return row?.status ?? null;
  }
}
