import type { ConversationOptions } from '../conversation.js';
import { ConversationContext } from '../conversation-context.js';
import { migrate, type PgPool } from './db.js';
import { PG_SLACK_MIGRATIONS } from './schema.js';

/** What the PostgreSQL conversation rooms share: the pool (once migrated), and what every backend's share. */
export class PgConversationContext<R> extends ConversationContext<R> {
  readonly ready: Promise<number>;

  constructor(
    readonly pool: PgPool,
    opts: ConversationOptions<R>,
  ) {
    super(opts);
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
