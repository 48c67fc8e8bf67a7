import { claimable, OWNER, type ClaimRow } from './conversation-claims.js';
import { EVENT_LEASE_MS, type ConversationOptions, type ResultCodec } from './conversation.js';

/**
 * What every backend's conversation rooms share, whatever their connection: the codec, the TTL,
 * the clock, this process as the owner of its claims, and the events it is answering now.
 */
export class ConversationContext<R> {
  /** Events being answered by this process right now (a redelivery meanwhile is a duplicate). */
  readonly inflight = new Set<string>();
  readonly ttlMs: number;
  readonly codec: ResultCodec<R>;
  readonly now: () => number;
  readonly owner: string;
  readonly leaseMs: number;

  constructor(opts: ConversationOptions<R>) {
    this.ttlMs = opts.ttlMs;
    this.codec = opts.codec;
    this.now = opts.now ?? Date.now;
    this.owner = opts.owner ?? OWNER;
    this.leaseMs = opts.leaseMs ?? EVENT_LEASE_MS;
  }

  /**
   * Whether a received event's claim may be taken: nobody holds it, this owner does, its lease has
   * lapsed, its owner is a process of this machine that is gone, or (a claim from before leases)
   * it has not moved for `staleMs`.
   */
  claimable(row: ClaimRow, t: number, staleMs: number): boolean {
    return claimable(row, this.owner, t, staleMs);
  }
}
