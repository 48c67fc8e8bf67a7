import type { AnswerWriter } from '../engine/writer/index.js';
import type { Config } from '../config.js';
import type { Core } from '../core.js';
import type { EngineQueue } from '../engine/queue.js';
import type { Logger } from '../log.js';
import type { AccessContext } from '../store/access.js';
import type { SlackApi } from './api.js';
import type { SlackStateStore } from './state/interfaces.js';
import type { SourceSync } from './source/live.js';
import type { EngineApi } from '../engine/api.js';

// What the Slack flows (questions and commands in service.ts, buttons in button-flow.ts) share.

/**
 * The thread and message ts recorded for a reply only its asker sees (`/ragask`'s ephemeral
 * answer): it has no ts of its own, so no thread can be looked up or posted into under it.
 */
export const EPHEMERAL_TS = 'ephemeral';

/** Where a question was asked and by whom: what the answer may see and where it goes. */
export interface Origin {
  channel: string;
  user: string;
  /** The thread the answer goes in (the question's ts when it starts one). */
  threadTs: string;
  isDM: boolean;
  teamId?: string;
}

export interface ActionInput {
  user: string;
  channel: string;
  /** The JSON the button carries: the state key and, for suggestions, the index. */
  value: string;
  /** The message the button is on. */
  messageTs: string | null;
  ephemeral: boolean;
  responseUrl: string | null;
}

/** Where a Slack question is asked, as the core's access context (the documents' scopes decide). */
export function accessOf(origin: Origin): AccessContext {
  return { kind: 'slack', channel: origin.channel, user: origin.user, isDM: origin.isDM };
}

export interface ServiceDeps {
  /** The store and access rules (the models, when any, answer through `engine`). */
  core: Pick<Core, 'store' | 'access'>;
  /** Who answers: a pool of worker threads when serving, else the core's own engine. */
  engine: EngineApi;
  config: Config;
  api: SlackApi;
  store: SlackStateStore;
  log: Logger;
  queue?: EngineQueue;
  /** Keeps the threads of RAGASK_SLACK_SOURCES channels up to date, when any are set. */
  sources?: SourceSync;
  /** The optional answer writer: a checked written answer streams into the thread after the extractive one. */
  writer?: AnswerWriter;
}
