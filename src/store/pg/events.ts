import { inTransaction } from './db.js';
import type { ClaimRow } from '../conversation-claims.js';
import type { EventClaim, EventLedger } from '../conversation.js';
import type { PgConversationContext } from './conversation-context.js';

export class PgEventLedger implements EventLedger {
  constructor(private readonly ctx: PgConversationContext<unknown>) {}

  async renewClaims(): Promise<void> {
    if (this.ctx.inflight.size === 0) return;
    await this.ctx.q(
      "UPDATE slack_events SET lease_until = $1 WHERE owner = $2 AND status = 'received' AND event_id = ANY($3::text[])",
      [this.ctx.now() + this.ctx.leaseMs, this.ctx.owner, [...this.ctx.inflight]],
    );
  }

  async claimEvent(
    eventId: string,
    channel: string | null,
    payload: unknown = null,
    staleMs = 10 * 60_000,
  ): Promise<EventClaim> {
    if (this.ctx.inflight.has(eventId)) return { status: 'duplicate' };
    await this.ctx.ready;
    const t = this.ctx.now();
    const claim = await inTransaction(this.ctx.pool, async (c): Promise<EventClaim> => {
      // a new event: inserted here, or by a replica racing for it (then its row is locked below)
      const inserted = await c.query(
        "INSERT INTO slack_events (event_id, status, channel, owner, payload, created_at, updated_at, attempts, lease_until) VALUES ($1, 'received', $2, $3, $4, $5, $5, 1, $6) ON CONFLICT (event_id) DO NOTHING",
        [eventId, channel, this.ctx.owner, payload === null ? null : JSON.stringify(payload), t, t + this.ctx.leaseMs],
      );
      if (inserted.rowCount === 1) return { status: 'new', messageTs: null, attempts: 1 };
      const row = (
        await c.query<ClaimRow & { status: string; answer_ts: string | null; attempts: number }>(
          'SELECT status, owner, answer_ts, updated_at, attempts, lease_until FROM slack_events WHERE event_id = $1 FOR UPDATE',
          [eventId],
        )
      ).rows[0];
      if (row && row.status === 'received' && this.ctx.claimable(row, t, staleMs)) {
        await c.query(
          'UPDATE slack_events SET owner = $1, updated_at = $2, attempts = attempts + 1, lease_until = $3 WHERE event_id = $4',
          [this.ctx.owner, t, t + this.ctx.leaseMs, eventId],
        );
        return { status: 'new', messageTs: row.answer_ts, attempts: row.attempts + 1 };
      }
      return { status: 'duplicate' };
    });
    if (claim.status === 'new') this.ctx.inflight.add(eventId);
    return claim;
  }

  async recordDelivery(eventId: string, channel: string | null, raw: unknown): Promise<void> {
    const t = this.ctx.now();
    await this.ctx.q(
      "INSERT INTO slack_events (event_id, status, channel, owner, payload, created_at, updated_at) VALUES ($1, 'received', $2, NULL, $3, $4, $4) ON CONFLICT (event_id) DO NOTHING",
      [eventId, channel, JSON.stringify({ raw }), t],
    );
  }

  async ignoreEvent(eventId: string): Promise<void> {
    await this.ctx.q(
      "UPDATE slack_events SET status = 'ignored', updated_at = $1 WHERE event_id = $2 AND status = 'received' AND owner IS NULL",
      [this.ctx.now(), eventId],
    );
  }

  async setEventMessage(eventId: string, ts: string): Promise<void> {
    await this.ctx.q('UPDATE slack_events SET answer_ts = $1, updated_at = $2 WHERE event_id = $3', [
      ts,
      this.ctx.now(),
      eventId,
    ]);
  }

  async finishEvent(eventId: string, status: 'answered' | 'ignored', answerTs: string | null = null): Promise<void> {
    await this.ctx.q('UPDATE slack_events SET status = $1, answer_ts = $2, updated_at = $3 WHERE event_id = $4', [
      status,
      answerTs,
      this.ctx.now(),
      eventId,
    ]);
    this.ctx.inflight.delete(eventId);
  }

  async orphanedEvents(maxAgeMs = 3600_000, minIdleMs = 0): Promise<{ eventId: string; payload: unknown }[]> {
    const t = this.ctx.now();
    const rows = await this.ctx.q<ClaimRow & { event_id: string; payload: string }>(
      // the idle time doubles with each attempt already made (backoff), up to 64 times
      `SELECT event_id, owner, payload, lease_until, updated_at FROM slack_events
       WHERE status = 'received' AND payload IS NOT NULL AND created_at >= $1 AND updated_at <= $2 - $3::bigint * (1 << LEAST(GREATEST(attempts - 1, 0), 6))`,
      [t - maxAgeMs, t, minIdleMs],
    );
    return rows.rows
      .filter(
        (r) =>
          !this.ctx.inflight.has(r.event_id) &&
          r.owner !== this.ctx.owner &&
          this.ctx.claimable(r, t, Number.POSITIVE_INFINITY),
      )
      .map((r) => ({ eventId: r.event_id, payload: JSON.parse(r.payload) as unknown }));
  }

  async releaseEvent(eventId: string): Promise<void> {
    this.ctx.inflight.delete(eventId);
    await this.ctx.q("UPDATE slack_events SET owner = NULL WHERE event_id = $1 AND status = 'received'", [eventId]);
  }

  async eventStatus(eventId: string): Promise<string | null> {
    return (
      (await this.ctx.q<{ status: string }>('SELECT status FROM slack_events WHERE event_id = $1', [eventId])).rows[0]
        ?.status ?? null
    );
  }
}
