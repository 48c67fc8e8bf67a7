import { QUESTION_RETENTION_MS, type ConversationOptions, type ConversationStore } from '../conversation.js';
import type { PgPool } from './db.js';
import { PgConversationContext } from './conversation-context.js';
import { PgEventLedger } from './events.js';
import { PgThreads } from './threads.js';
import { PgButtonStates } from './button-states.js';
import { PgFeedback } from './feedback.js';

/**
 * The PostgreSQL backend of the SlackStateStore, in the store's database: every replica shares the
 * events ledger (each event claimed by one replica at a time, with a lease), the threads, the
 * button states (used once) and the feedback. Claims lock their row (SELECT … FOR UPDATE), so two
 * replicas never both find an event free.
 */
export class PgConversations<R> implements ConversationStore<R> {
  readonly events: PgEventLedger;
  readonly threads: PgThreads<R>;
  readonly states: PgButtonStates<R>;
  readonly feedback: PgFeedback;
  private readonly ctx: PgConversationContext<R>;
  /** The connection was opened for this store (openConversations), so close() closes it. */
  private readonly ownsConnection: boolean;

  constructor(
    private readonly pool: PgPool,
    opts: ConversationOptions<R>,
  ) {
    const ctx = new PgConversationContext(pool, opts);
    this.ctx = ctx;
    this.ownsConnection = opts.ownsConnection ?? false;
    this.events = new PgEventLedger(ctx);
    this.threads = new PgThreads(ctx);
    this.states = new PgButtonStates(ctx);
    this.feedback = new PgFeedback(ctx);
  }

  async prune(eventRetentionMs = 7 * 86400_000): Promise<number> {
    const t = this.ctx.now();
    let n = (await this.ctx.q('DELETE FROM slack_states WHERE expires_at < $1', [t])).rowCount;
    n += (await this.ctx.q('DELETE FROM slack_threads WHERE expires_at < $1', [t])).rowCount;
    // unanswered ones too, once they are far older than any redelivery or recovery
    n += (await this.ctx.q('DELETE FROM slack_events WHERE updated_at < $1', [t - eventRetentionMs])).rowCount;
    n += (await this.ctx.q('DELETE FROM slack_questions WHERE asked_at < $1', [t - QUESTION_RETENTION_MS])).rowCount;
    return n;
  }
  async close(): Promise<void> {
    if (this.ownsConnection) await this.pool.end();
  }
}
