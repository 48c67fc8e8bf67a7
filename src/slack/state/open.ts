import { decodeResult, encodeResult } from '../../engine/result-schema.js';
import type { EngineResult } from '../../engine/types.js';
import type { ResultCodec } from '../../store/conversation.js';
import { openConversations, type OpenStoreOptions } from '../../store/open.js';
import type { SlackStateStore } from './interfaces.js';

/** The engine's results as the conversation store keeps them: versioned JSON, and the short answer. */
export const RESULT_CODEC: ResultCodec<EngineResult> = {
  encode: encodeResult,
  decode: decodeResult,
  shortAnswer: (r) => r.answer.value,
};

/**
 * The Slack app's state, opened from the store's database settings (the same database, a
 * connection of its own). `ttlMs`: how long button states and threads last; `now`: its clock
 * (tests move it on).
 */
export async function openSlackState(
  settings: Pick<OpenStoreOptions, 'dataDir' | 'databaseUrl' | 'pgSchema'>,
  ttlMs: number,
  now?: () => number,
): Promise<SlackStateStore> {
  return openConversations(settings, { codec: RESULT_CODEC, ttlMs, ...(now ? { now } : {}) });
}
