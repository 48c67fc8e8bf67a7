import { QUESTION_RETENTION_MS, type ConversationOptions, type ConversationStore } from '../conversation.js';
import type { DB } from './db.js';
import { migrateConversations } from './schema.js';
import { SqliteConversationContext } from './conversation-context.js';
import { SqliteEventLedger } from './events.js';
import { SqliteThreads } from './threads.js';
import { SqliteButtonStates } from './button-states.js';
import { SqliteFeedback } from './feedback.js';

/**
 * The SQLite backend of the conversation store (the Slack app's state), in the same file as the
 * store (so it survives restarts and is backed up with it) but in its own tables, with its own
 * schema version, over its own connection: the document store knows nothing of it.
 */
export class SqliteConversations<R> implements ConversationStore<R> {
  readonly events: SqliteEventLedger;
  readonly threads: SqliteThreads<R>;
  readonly states: SqliteButtonStates<R>;
  readonly feedback: SqliteFeedback;
  private readonly ctx: SqliteConversationContext<R>;
  /** The connection was opened for this store (openConversations), so close() closes it. */
  private readonly ownsConnection: boolean;

  constructor(
    readonly db: DB,
    opts: ConversationOptions<R>,
  ) {
    migrateConversations(db);
    const ctx = new SqliteConversationContext(db, opts);
    this.ctx = ctx;
    this.ownsConnection = opts.ownsConnection ?? false;
    this.events = new SqliteEventLedger(ctx);
    this.threads = new SqliteThreads(ctx);
    this.states = new SqliteButtonStates(ctx);
    this.feedback = new SqliteFeedback(ctx);
  }

  async prune(eventRetentionMs = 7 * 86400_000): Promise<number> {
    const t = this.ctx.now();
    let n = this.ctx.db.prepare('DELETE FROM slack_states WHERE expires_at < ?').run(t).changes;
    n += this.ctx.db.prepare('DELETE FROM slack_threads WHERE expires_at < ?').run(t).changes;
    // unanswered ones too, once they are far older than any redelivery or recovery
    n += this.ctx.db.prepare('DELETE FROM slack_events WHERE updated_at < ?').run(t - eventRetentionMs).changes;
    n += this.ctx.db.prepare('DELETE FROM slack_questions WHERE asked_at < ?').run(t - QUESTION_RETENTION_MS).changes;
    return n;
  }
  async close(): Promise<void> {
    if (this.ownsConnection) this.db.close();
  }
}
