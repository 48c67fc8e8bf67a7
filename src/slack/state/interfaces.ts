/**
 * The Slack app's state: the store's conversation contract (src/store/conversation.ts) holding the
 * engine's results. The listeners, the service and the button flow depend on these, never on a
 * database or a backend file.
 */
import type { EngineResult } from '../../engine/types.js';
import type {
  ConversationStore,
  StateRead as AnyStateRead,
  StoredState as AnyStoredState,
  ThreadState as AnyThreadState,
  Turn as AnyTurn,
} from '../../store/conversation.js';

export {
  EVENT_LEASE_MS,
  FEEDBACK_REASONS,
  type AskedQuestion,
  type EventClaim,
  type FeedbackContext,
  type FeedbackReason,
  type FeedbackRow,
} from '../../store/conversation.js';

export type SlackStateStore = ConversationStore<EngineResult>;
export type Turn = AnyTurn<EngineResult>;
export type ThreadState = AnyThreadState<EngineResult>;
export type StateRead = AnyStateRead<EngineResult>;
export type StoredState = AnyStoredState<EngineResult>;
