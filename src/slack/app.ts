import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { App, HTTPReceiver, SocketModeReceiver, type ReceiverEvent } from '@slack/bolt';
import { checkSlackConfig, type Config, type SlackConfig } from '../config.js';
import type { Core } from '../core.js';
import { EngineQueue } from '../engine/queue.js';
import { errorMessage, UserError } from '../errors.js';
import type { Logger } from '../log.js';
import { NO_TIERS, SLACK_TIERS, SlackApi, type TierLimits } from './api.js';
import { boltLogger } from './bolt-logger.js';
import { questionDelivery } from './delivery.js';
import { RecordingReceiver } from './recording-receiver.js';
import { registerListeners } from './listeners/index.js';
import { SlackService } from './service.js';
import { EVENT_LEASE_MS, type SlackStateStore } from './state/interfaces.js';
import { SourceSync } from './source/live.js';
import type { AnswerWriter } from '../engine/writer/index.js';
import type { Encoder } from '../models/encoder.js';
import type { EngineApi } from '../engine/api.js';

/** How long a stop waits for answers in flight (a serve process ends 10 s after its signal in any case). */
const STOP_DRAIN_MS = 8_000;

/** Slack's answers to a token it does not accept. */
const BAD_TOKEN = new Set([
  'invalid_auth',
  'not_authed',
  'account_inactive',
  'token_revoked',
  'token_expired',
  'not_allowed_token_type',
]);

const WHERE_TO_GET: Record<'SLACK_BOT_TOKEN' | 'SLACK_APP_TOKEN', string> = {
  SLACK_BOT_TOKEN:
    "copy the Bot User OAuth Token (xoxb-…) from your app's OAuth & Permissions page at https://api.slack.com/apps (reinstall the app if it was revoked)",
  SLACK_APP_TOKEN:
    'create an app-level token (xapp-…) with the connections:write scope under Basic Information → App-Level Tokens at https://api.slack.com/apps',
};

/** A Slack error that means the setting's token is not accepted, as a one-line configuration error. */
function credentialError(e: unknown, setting: 'SLACK_BOT_TOKEN' | 'SLACK_APP_TOKEN'): UserError | null {
  const code =
    (e as { data?: { error?: string } } | null)?.data?.error ??
    /\b(invalid_auth|not_authed|account_inactive|token_revoked|token_expired|not_allowed_token_type)\b/.exec(
      String((e as Error)?.message ?? ''),
    )?.[1];
  if (!code || !BAD_TOKEN.has(code)) return null;
  return new UserError(`${setting}: Slack does not accept this token (${code}); ${WHERE_TO_GET[setting]}`, 'config');
}

/** Checks the bot token with auth.test before anything starts, so a bad one is one clear line. */
async function checkBotToken(api: SlackApi, apiUrl: string): Promise<void> {
  try {
    await api.client.auth.test();
  } catch (e) {
    const bad = credentialError(e, 'SLACK_BOT_TOKEN');
    if (bad) throw bad;
    if ((e as { code?: string }).code === 'slack_webapi_request_error') {
      throw new UserError(
        `cannot reach Slack's Web API at ${apiUrl} (${errorMessage((e as { original?: unknown }).original ?? e)}); check the network, a proxy, or RAGASK_SLACK_API_URL`,
      );
    }
    throw e;
  }
}

/** Slack's replay window: a signed request more than this far from now, either way, is refused. */
const MAX_CLOCK_SKEW_S = 300;

/**
 * Bolt refuses a request timestamped too far in the past; one from the future is refused here, so
 * a captured request cannot be kept and replayed later.
 */
function rejectFutureTimestamps(receiver: HTTPReceiver, log: Logger): void {
  const next = receiver.requestListener;
  receiver.requestListener = (req, res) => {
    const ts = Number(req.headers['x-slack-request-timestamp']);
    if (Number.isFinite(ts) && ts - Date.now() / 1000 > MAX_CLOCK_SKEW_S) {
      log.warn({ skewS: Math.round(ts - Date.now() / 1000) }, 'slack: refused a request timestamped in the future');
      res.writeHead(401).end();
      return;
    }
    next(req, res);
  };
}

export interface SlackAppOptions {
  /** Slack's rate-limit tiers (tests may shorten them). */
  tiers?: TierLimits;
  /** Path of the Events API endpoint in HTTP mode (events, commands and actions alike). */
  endpoint?: string;
  /** The recovery sweep's period and the idle time that makes an event an orphan (tests shorten them). */
  orphanSweep?: { everyMs: number; idleMs: number };
  /**
   * Who answers questions: `ragask serve` passes its EnginePool (worker threads), so this thread
   * only acknowledges, records and talks to Slack; absent, the core's engine answers in this thread.
   */
  engine?: EngineApi;
  /** The encoder that embeds RAGASK_SLACK_SOURCES threads, where the core has none (engine workers). */
  sourceEncoder?: Encoder;
  /** Questions answered at the same time (default RAGASK_ENGINE_CONCURRENCY). */
  concurrency?: number;
  /** The optional answer writer (RAGASK_WRITER_URL): a checked written answer streams after the extractive one. */
  writer?: AnswerWriter | null;
}

export interface SlackAppHandle {
  app: App;
  service: SlackService;
  api: SlackApi;
  store: SlackStateStore;
  /** Starts the receiver; in HTTP mode returns the port it listens on. */
  start(): Promise<{ port: number | null }>;
  /** Resolves once every delivery received so far is handled and its answer published (tests wait on it). */
  idle(): Promise<void>;
  stop(): Promise<void>;
}

/** The receiver the config selects: HTTP (Events API, signed, future timestamps refused) or Socket Mode. */
function slackReceiver(
  s: Config['slack'],
  endpoint: string,
  logger: ReturnType<typeof boltLogger>,
  log: Logger,
): HTTPReceiver | SocketModeReceiver {
  if (s.mode !== 'http')
    return new SocketModeReceiver({
      appToken: s.appToken!,
      logger,
      installerOptions: { clientOptions: { slackApiUrl: s.apiUrl } },
    });
  const receiver = new HTTPReceiver({
    signingSecret: s.signingSecret!,
    endpoints: endpoint,
    processBeforeResponse: false,
    logger,
    unhandledRequestTimeoutMillis: 3001,
  });
  rejectFutureTimestamps(receiver, log);
  return receiver;
}

/**
 * What each delivery meets before Bolt: a question is recorded in the ledger before Bolt acks it
 * (persist first, ack second); Slack's app_rate_limited notice is acknowledged and logged here.
 */
function recordFirst(store: SlackStateStore, log: Logger): (event: ReceiverEvent) => Promise<boolean> {
  return async (event) => {
    if (event.body.type === 'app_rate_limited') {
      // Slack stops sending events for a minute: acknowledge the notice, and say so in the log
      log.warn(
        { minuteRateLimited: event.body.minute_rate_limited },
        "slack: Slack rate-limited this app's events (app_rate_limited)",
      );
      await event.ack();
      return true;
    }
    const d = questionDelivery(event.body);
    if (d) await store.events.recordDelivery(d.eventId, d.channel, event.body);
    return false;
  };
}

/**
 * The background work of a serving app: hourly pruning of the state, the recovery sweep of
 * unanswered events (and one at start), and the renewal of this process's event leases.
 */
function backgroundWork(
  store: SlackStateStore,
  service: SlackService,
  app: App,
  sweep: { everyMs: number; idleMs: number },
  log: Logger,
): { start(): void; stop(): void } {
  // a recovered delivery goes through Bolt again, acked to nobody (it is in the ledger already)
  const replay = (raw: unknown) =>
    app.processEvent({ body: raw as Record<string, unknown>, ack: async () => undefined });
  const recover = (minIdleMs: number) =>
    service
      .recoverOrphans(replay, minIdleMs)
      .catch((e: unknown) => log.error({ err: e }, 'slack: recovering unanswered events failed'));
  const timers: NodeJS.Timeout[] = [];
  const every = (ms: number, work: () => void) => timers.push(setInterval(work, ms).unref());
  return {
    start() {
      every(
        PRUNE_EVERY_MS,
        () =>
          void store
            .prune()
            .catch((e: unknown) => log.warn({ err: e }, 'slack: pruning the state failed; retried in an hour')),
      );
      // questions a previous process took but never answered are answered now (in the background),
      // and the sweep keeps doing so for those whose handling fails while this process lives
      void recover(0);
      every(sweep.everyMs, () => void recover(sweep.idleMs));
      // the claims of the questions being answered stay this process's while it lives
      every(
        EVENT_LEASE_MS / 3,
        () =>
          void store.events
            .renewClaims()
            .catch((e: unknown) =>
              log.warn({ err: e }, 'slack: renewing event claims failed; retried at the next period'),
            ),
      );
    },
    stop() {
      for (const t of timers.splice(0)) clearInterval(t);
    },
  };
}

/** The live sync of RAGASK_SLACK_SOURCES channels, which embeds with the core's encoder or the one given. */
function sourceSync(
  core: Pick<Core, 'store' | 'access'> & { encoder?: Encoder },
  config: Config,
  api: SlackApi,
  log: Logger,
  encoder: Encoder | undefined,
): SourceSync | null {
  if (!config.slack.sources.length) return null;
  const enc = encoder ?? core.encoder;
  if (!enc) throw new Error('RAGASK_SLACK_SOURCES needs an encoder in this thread (serve loads one)');
  return new SourceSync({
    api,
    ingest: { store: core.store, encoder: enc, config, log },
    log,
    channels: config.slack.sources,
  });
}

/** How often expired threads, button states and old events are pruned. */
const PRUNE_EVERY_MS = 3600_000;

/**
 * The Slack app: Bolt with the receiver the config selects — Socket Mode (default: no public URL)
 * or HTTP (Events API, signature verification, behind a load balancer) — and the listeners, which
 * only call the service. The core and the Slack state (openSlackState) are passed in; nothing here
 * retrieves, and the caller closes the state after stop().
 */
export function createSlackApp(
  core: Pick<Core, 'store' | 'access'> & { engine?: EngineApi; encoder?: Encoder },
  store: SlackStateStore,
  config: Config,
  log: Logger,
  opts: SlackAppOptions = {},
): SlackAppHandle {
  checkSlackConfig(config);
  const s = config.slack;
  const logger = boltLogger(log);
  const endpoint = opts.endpoint ?? '/slack/events';
  const receiver = slackReceiver(s, endpoint, logger, log);
  const recording = new RecordingReceiver(receiver, recordFirst(store, log));
  // initialised in start(), after ragask's own check of the token: Bolt's check at construction
  // would fail later as an unhandled rejection with a raw stack trace
  const app = new App({
    token: s.botToken!,
    receiver: recording,
    logger,
    clientOptions: { slackApiUrl: s.apiUrl },
    ignoreSelf: true,
    deferInitialization: true,
  });
  const api = slackApi(s, log, opts);
  const queue = new EngineQueue({
    concurrency: opts.concurrency ?? config.engineConcurrency,
    limit: config.queueLimit,
  });
  const engine = opts.engine ?? core.engine;
  if (!engine) throw new Error("createSlackApp needs an engine: the core's, or opts.engine");
  const sources = sourceSync(core, config, api, log, opts.sourceEncoder);
  const service = new SlackService({
    ...{ core, engine, config, api, store, log, queue },
    ...(sources ? { sources } : {}),
    ...(opts.writer ? { writer: opts.writer } : {}),
  });
  registerListeners(app, service);
  app.error(async (e) => {
    log.error({ err: e }, 'slack: unhandled error in a listener');
  });
  // an event recorded but not yet claimed is left to its receiver for half a period
  const background = backgroundWork(
    store,
    service,
    app,
    opts.orphanSweep ?? { everyMs: s.recoverySweepMs, idleMs: s.recoverySweepMs / 2 },
    log,
  );
  return {
    app,
    service,
    api,
    store,
    start: () => startSlackApp({ app, api, receiver, background, slack: s, endpoint }, log),
    async idle() {
      await recording.idle();
      await service.drain();
    },
    async stop() {
      background.stop();
      await app.stop().catch(() => undefined);
      // answers in flight finish before the limiters that carry their last calls stop
      await service.drain(STOP_DRAIN_MS);
      await service.queue.stop();
      await sources?.stop();
      await api.stop();
    },
  };
}

/** Slack's Web API behind its rate-limit tiers (shared through Redis across replicas when configured). */
function slackApi(s: SlackConfig, log: Logger, opts: SlackAppOptions): SlackApi {
  return new SlackApi({
    token: s.botToken!,
    apiUrl: s.apiUrl,
    log,
    tiers: opts.tiers ?? (s.rateLimits === 'off' ? NO_TIERS : SLACK_TIERS),
    ...(s.redisUrl ? { shared: { redisUrl: s.redisUrl } } : {}),
  });
}

/** Checks the token, then listens: over HTTP on the configured port, or over Socket Mode. */
async function startSlackApp(
  parts: {
    app: App;
    api: SlackApi;
    receiver: ReturnType<typeof slackReceiver>;
    background: { start(): void };
    slack: SlackConfig;
    endpoint: string;
  },
  log: Logger,
): Promise<{ port: number | null }> {
  const { app, api, receiver, slack } = parts;
  await checkBotToken(api, slack.apiUrl);
  await api.ready();
  await app.init();
  parts.background.start();
  if (receiver instanceof HTTPReceiver) {
    const server = (await receiver.start({ port: slack.port, host: slack.host })) as Server;
    const port = (server.address() as AddressInfo).port;
    log.info({ port, host: slack.host, endpoint: parts.endpoint }, 'slack: HTTP receiver listening');
    return { port };
  }
  try {
    await app.start();
  } catch (e) {
    throw credentialError(e, 'SLACK_APP_TOKEN') ?? e;
  }
  log.info('slack: connected over Socket Mode');
  return { port: null };
}
