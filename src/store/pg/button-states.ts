/** The answers behind buttons, used once, with a TTL, in PostgreSQL. */
import { randomBytes } from 'node:crypto';
import { threadKey } from '../conversation-claims.js';
import type { ButtonStates, StateRead } from '../conversation.js';
import { toStoredState } from '../conversation-rows.js';
import type { PgConversationContext } from './conversation-context.js';

export class PgButtonStates<R> implements ButtonStates<R> {
  constructor(private readonly ctx: PgConversationContext<R>) {}

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
    await this.ctx.q(
      'INSERT INTO slack_states (key, channel, thread_ts, message_ts, owner, result, created_at, expires_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)',
      [key, s.channel, s.threadTs, s.messageTs, s.owner, this.ctx.codec.encode(s.result), t, t + this.ctx.ttlMs],
    );
    return key;
  }

  async setStateMessage(key: string, messageTs: string): Promise<void> {
    await this.ctx.q('UPDATE slack_states SET message_ts = $1 WHERE key = $2', [messageTs, key]);
  }

  async getState(key: string): Promise<StateRead<R> | null> {
    const row = (await this.ctx.q('SELECT * FROM slack_states WHERE key = $1', [key])).rows[0];
    if (!row) return null;
    return toStoredState(key, row, this.ctx.now(), this.ctx.codec);
  }

  async unuseState(key: string): Promise<void> {
    await this.ctx.q('UPDATE slack_states SET used_at = NULL, used_by = NULL WHERE key = $1', [key]);
  }

  /** Marks a state used; false if it was already: the conditional UPDATE lets one click win across replicas. */
  async useState(key: string, user: string): Promise<boolean> {
    return (
      (
        await this.ctx.q('UPDATE slack_states SET used_at = $1, used_by = $2 WHERE key = $3 AND used_at IS NULL', [
          this.ctx.now(),
          user,
          key,
        ])
      ).rowCount === 1
    );
  }
}
