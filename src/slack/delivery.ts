/**
 * Which deliveries are persisted before Slack's ack: an acknowledged event is never sent again, so
 * one that may be a question is written to the events ledger before Bolt acks it, and a process
 * that dies after the ack leaves a row that a restart (or the recovery sweep) answers. Pure: the
 * listeners decide the rest, and mark what they leave alone as ignored.
 */

export interface Delivery {
  eventId: string;
  channel: string | null;
}

interface EventBody {
  type?: string;
  event_id?: string;
  event?: {
    type?: string;
    user?: string;
    text?: string;
    subtype?: string;
    bot_id?: string;
    channel?: string;
    channel_type?: string;
    thread_ts?: string;
  };
}

/** Message subtypes that still ask something (a reply also sent to the channel, a message with a file). */
const ASKING_SUBTYPES = new Set(['thread_broadcast', 'file_share']);

/** A message a person wrote that may ask something: not the bot's, not an edit or a join, with text. */
export function isPersonMessage(m: { subtype?: string; bot_id?: string; user?: string; text?: string }): boolean {
  return !(m.subtype && !ASKING_SUBTYPES.has(m.subtype)) && !m.bot_id && !!m.user && !!m.text;
}

/** The event a delivery may be a question in (an @-mention, a DM, a reply in a thread), or null. */
export function questionDelivery(body: unknown): Delivery | null {
  const b = body as EventBody | null;
  if (b?.type !== 'event_callback' || !b.event_id || !b.event) return null;
  const e = b.event;
  const channel = e.channel ?? null;
  if (e.type === 'app_mention') return e.user ? { eventId: b.event_id, channel } : null;
  if (e.type !== 'message' || !isPersonMessage(e)) return null;
  return e.channel_type === 'im' || e.thread_ts ? { eventId: b.event_id, channel } : null;
}

/** What the ledger keeps of a delivery recorded before its ack: the raw body, replayed through Bolt. */
export interface RawDelivery {
  raw: unknown;
}

export function isRawDelivery(payload: unknown): payload is RawDelivery {
  return typeof payload === 'object' && payload !== null && 'raw' in payload;
}
