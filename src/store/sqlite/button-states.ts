/** The answers behind buttons, used once, with a TTL, in SQLite. */
import { randomBytes } from 'node:crypto';
import { threadKey } from '../conversation-claims.js';
import type { ButtonStates, StateRead } from '../conversation.js';
import { toStoredState } from '../conversation-rows.js';
import type { SqliteConversationContext } from './conversation-context.js';

export class SqliteButtonStates<R> implements ButtonStates<R> {
  constructor(private readonly ctx: SqliteConversationContext<R>) {}

  /** Stores the engine state behind an answer message; the key goes into its buttons. */
  async saveState(s: {
    channel: string;
    threadTs: string;
    messageTs: string;
    owner: string;
    result: R;
  }): Promise<string> {
    const t = this.ctx.now();
    // channel + thread + message, plus a random part so a key cannot be guessed from public ids
    const key = `${threadKey(s.channel, s.threadTs)}:${s.messageTs}:${randomBytes(6).toString('hex')}`;
    this.ctx.db
      .prepare(
        'INSERT INTO slack_states (key, channel, thread_ts, message_ts, owner, result, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
      )
      .run(key, s.channel, s.threadTs, s.messageTs, s.owner, this.ctx.codec.encode(s.result), t, t + this.ctx.ttlMs);
    return key;
  }

  /** The message a state belongs to, once posted. */
  async setStateMessage(key: string, messageTs: string): Promise<void> {
    this.ctx.db.prepare('UPDATE slack_states SET message_ts = ? WHERE key = ?').run(messageTs, key);
  }

  async getState(key: string): Promise<StateRead<R> | null> {
    const row = this.ctx.db.prepare('SELECT * FROM slack_states WHERE key = ?').get(key) as
      Record<string, unknown> | undefined;
    if (!row) return null;
    return toStoredState(key, row, this.ctx.now(), this.ctx.codec);
  }

  /** Makes a state usable again (its continuation failed, so the buttons stay). */
  async unuseState(key: string): Promise<void> {
    this.ctx.db.prepare('UPDATE slack_states SET used_at = NULL, used_by = NULL WHERE key = ?').run(key);
  }

  /** Marks a state used; false if it was already (two clicks racing: only one wins). */
  async useState(key: string, user: string): Promise<boolean> {
    return (
      this.ctx.db
        .prepare('UPDATE slack_states SET used_at = ?, used_by = ? WHERE key = ? AND used_at IS NULL')
        .run(this.ctx.now(), user, key).changes === 1
    );
  }
}
