import type { ConversationOptions } from '../conversation.js';
import { ConversationContext } from '../conversation-context.js';
import type { DB } from './db.js';

/** What the SQLite conversation rooms share: the connection, and what every backend's share. */
export class SqliteConversationContext<R> extends ConversationContext<R> {
  constructor(
    readonly db: DB,
    opts: ConversationOptions<R>,
  ) {
    super(opts);
  }
}
