/**
 * What a chat front end keeps between messages, as a contract of its own: the events ledger,
 * threads, button states, feedback and each person's questions. One implementation per backend
 * (sqlite/conversations.ts, pg/conversations.ts), opened by openConversations. The answer a state
 * or a turn holds is the front end's own type `R`, stored through its codec: the store reads none
 * of it.
 */

/** How a front end's answer is stored: as text, read back (null: written by code this one cannot read), and its short answer. */
export interface ResultCodec<R> {
  encode(result: R): string;
  decode(text: string): R | null;
  /** The short answer given, for a person's list of questions; null for none. */
  shortAnswer(result: R): string | null;
}

/** How a conversation store is opened: the codec of its answers, how long states last, and for tests a clock and an owner. */
export interface ConversationOptions<R> {
  codec: ResultCodec<R>;
  /** How long button states and threads last. */
  ttlMs: number;
  now?: () => number;
  /** Who claims (tests play several replicas; by default this process). */
  owner?: string;
  leaseMs?: number;
  /** The connection was opened for this store (openConversations), so close() closes it. */
  ownsConnection?: boolean;
}

/**
 * How long an event's claim holds without renewal, in every backend. The owner renews its claims
 * every EVENT_LEASE_MS / 3 while it answers them (renewClaims); a replica that dies stops renewing,
 * and after this another takes its events over, on whatever machine it runs.
 */
export const EVENT_LEASE_MS = 60_000;

/**
 * A chat front end's state (the Slack app's), in the store's database (its own tables, its own connection): the events ledger (each delivery answered once,
 * recovered when its process died), threads (follow-ups), button states (used once, with a TTL)
 * and feedback.
 */
/** The events ledger: each delivery answered once, recovered when the process answering it died. */
export interface EventLedger {
  recordDelivery(eventId: string, channel: string | null, raw: unknown): Promise<void>;
  claimEvent(eventId: string, channel: string | null, payload?: unknown, staleMs?: number): Promise<EventClaim>;
  ignoreEvent(eventId: string): Promise<void>;
  setEventMessage(eventId: string, ts: string): Promise<void>;
  finishEvent(eventId: string, status: 'answered' | 'ignored', answerTs?: string | null): Promise<void>;
  releaseEvent(eventId: string): Promise<void>;
  /** Renews the leases of the events this process is answering (see EVENT_LEASE_MS). */
  renewClaims(): Promise<void>;
  orphanedEvents(maxAgeMs?: number, minIdleMs?: number): Promise<{ eventId: string; payload: unknown }[]>;
  eventStatus(eventId: string): Promise<string | null>;
}

/** Threads (their turns, for follow-ups) and each person's questions (their App Home). */
export interface ThreadStore<R> {
  getThread(channel: string, threadTs: string): Promise<ThreadState<R> | null>;
  addTurn(channel: string, threadTs: string, turn: Omit<Turn<R>, 'at'>): Promise<ThreadState<R>>;
  /** The questions this person asked, newest first, each with its short answer and their feedback on it. */
  recentQuestions(user: string, limit: number): Promise<AskedQuestion[]>;
  /** Everyone's questions asked since `since` (ms), newest first, each with its asker: the gap report's input. */
  questionsSince(since: number, limit: number): Promise<(AskedQuestion & { user: string })[]>;
}

/** The answer behind a message's buttons: used once, with a TTL. */
export interface ButtonStates<R> {
  saveState(s: { channel: string; threadTs: string; messageTs: string; owner: string; result: R }): Promise<string>;
  setStateMessage(key: string, messageTs: string): Promise<void>;
  getState(key: string): Promise<StateRead<R> | null>;
  useState(key: string, user: string): Promise<boolean>;
  unuseState(key: string): Promise<void>;
}

/** Helpful or not, and why not, per answer and person. */
export interface FeedbackStore {
  addFeedback(f: Omit<FeedbackRow, 'id' | 'createdAt' | 'reason'>): Promise<boolean>;
  /** Says why an answer was not helpful, on that person's feedback on it; false when they gave none. */
  setFeedbackReason(stateKey: string, user: string, reason: FeedbackReason): Promise<boolean>;
  listFeedback(limit?: number, givenIn?: FeedbackContext | null): Promise<FeedbackRow[]>;
}

/** A front end's state: four rooms of one concern each over one connection. */
export interface ConversationStore<R> {
  readonly events: EventLedger;
  readonly threads: ThreadStore<R>;
  readonly states: ButtonStates<R>;
  readonly feedback: FeedbackStore;
  /** Drops expired threads and states, and events older than the retention; returns how many. */
  prune(eventRetentionMs?: number): Promise<number>;
  /** Closes the connection it opened (openConversations); a state handed a connection leaves it open. */
  close(): Promise<void>;
}

export interface Turn<R> {
  user: string;
  question: string;
  messageTs: string;
  result: R;
  at: number;
}

/** Where feedback was given: a channel, or a user's direct messages with ragask. */
export type FeedbackContext = { channel: string } | { dmOf: string };

export interface ThreadState<R> {
  channel: string;
  threadTs: string;
  participants: string[];
  turns: Turn<R>[];
}

export interface StoredState<R> {
  key: string;
  channel: string;
  threadTs: string;
  messageTs: string;
  owner: string;
  result: R;
  expiresAt: number;
  usedAt: number | null;
  usedBy: string | null;
}

/**
 * A question as its asker's App Home lists it. Kept apart from threads (which expire with the
 * button states) for QUESTION_RETENTION_MS; recorded with every answered turn.
 */
export interface AskedQuestion {
  channel: string;
  threadTs: string;
  /** The answer's message. */
  messageTs: string;
  question: string;
  /** The short answer given; null for "no definite answer". */
  answer: string | null;
  askedAt: number;
  feedback: { value: 'helpful' | 'not_helpful'; reason: FeedbackReason | null } | null;
}

/** How long a person's questions are kept for their App Home. */
export const QUESTION_RETENTION_MS = 30 * 86400_000;

export interface FeedbackRow {
  id: number;
  /** The answer it is about (one per answer version: a continued answer is a new one). */
  stateKey: string;
  channel: string;
  threadTs: string | null;
  messageTs: string;
  user: string;
  value: 'helpful' | 'not_helpful';
  /** Why it was not helpful, when the person said (one click after "Not helpful"). */
  reason: FeedbackReason | null;
  question: string;
  answer: string;
  evidence: number[];
  createdAt: number;
}

/** Why an answer was not helpful: it was wrong, out of date, or answered another question. */
export const FEEDBACK_REASONS = ['wrong', 'outdated', 'not_asked'] as const;
export type FeedbackReason = (typeof FEEDBACK_REASONS)[number];

/** A claimed event: new to this process, with the message already posted for it if a dead process had. */
export type EventClaim = { status: 'new'; messageTs: string | null; attempts: number } | { status: 'duplicate' };

/** A stored state as read: expired (past its TTL, or stored by code whose results this code cannot read) holds no result. */
export type StateRead<R> =
  (StoredState<R> & { expired: false }) | (Omit<StoredState<R>, 'result'> & { result: null; expired: true });
