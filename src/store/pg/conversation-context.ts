import { OWNER } from '../conversation-claims.js';
import { EVENT_LEASE_MS, type ConversationOptions, type ResultCodec } from '../conversation.js';
import { migrate, type PgPool } from './db.js';
import { PG_SLACK_MIGRATIONS } from './schema.js';

/** What the PostgreSQL conversation rooms share: the pool (once migrated), the codec, the clock and this owner's claims. */
export class PgConversationContext<R> {
  /** Events being answered by this process right now (a redelivery meanwhile is a duplicate). */
  readonly inflight = new Set<string>();
  readonly ttlMs: number;
  readonly codec: ResultCodec<R>;
  readonly now: () => number;
  readonly owner: string;
  readonly leaseMs: number;
  readonly ready: Promise<number>;

  constructor(
    readonly pool: PgPool,
    opts: ConversationOptions<R>,
  ) {
    this.ttlMs = opts.ttlMs;
    this.codec = opts.codec;
    this.now = opts.now ?? Date.now;
    this.owner = opts.owner ?? OWNER;
    this.leaseMs = opts.leaseMs ?? EVENT_LEASE_MS;
    this.ready = migrate(pool, 'slack', PG_SLACK_MIGRATIONS);
    // a failed migration surfaces at the first call that needs the tables
    this.ready.catch(() => undefined);
  }

  /** A query once the tables exist. */
  async q<T extends object = Record<string, unknown>>(
    sql: string,
    params: unknown[] = [],
  ): Promise<{ rows: T[]; rowCount: number }> {
    await this.ready;
    const r = await this.pool.query<T>(sql, params);
    return { rows: r.rows, rowCount: r.rowCount ?? 0 };
  }
}
