import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { App, HTTPReceiver, SocketModeReceiver } from '@slack/bolt';
import { checkSlackConfig, type Config } from '../config.js';
import type { Core } from '../core.js';
import type { Logger } from '../log.js';
import { NO_TIERS, SLACK_TIERS, SlackApi, type TierLimits } from './api.js';
import { boltLogger } from './bolt-logger.js';
import { questionDelivery } from './delivery.js';
import { registerListeners } from './listeners/index.js';
import { SlackService } from './service.js';
import { SlackStore } from './state-store.js';

/** How often unanswered events are swept up, and how long one must sit untouched to count. */
const ORPHAN_SWEEP_MS = 60_000;
const ORPHAN_IDLE_MS = 30_000;

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
}

export interface SlackAppHandle {
  app: App;
  service: SlackService;
  api: SlackApi;
  store: SlackStore;
  /** Starts the receiver; in HTTP mode returns the port it listens on. */
  start(): Promise<{ port: number | null }>;
  stop(): Promise<void>;
}

/**
 * The Slack app: Bolt with the receiver the config selects — Socket Mode (default: no public URL)
 * or HTTP (Events API, signature verification, behind a load balancer) — and the listeners, which
 * only call the service. The core is passed in; nothing here retrieves.
 */
export function createSlackApp(core: Core, config: Config, log: Logger, opts: SlackAppOptions = {}): SlackAppHandle {
  checkSlackConfig(config);
  const s = config.slack;
  const logger = boltLogger(log);
  const endpoint = opts.endpoint ?? '/slack/events';
  const receiver =
    s.mode === 'http'
      ? new HTTPReceiver({ signingSecret: s.signingSecret!, endpoints: endpoint, processBeforeResponse: false, logger, unhandledRequestTimeoutMillis: 3001 })
      : new SocketModeReceiver({ appToken: s.appToken!, logger, installerOptions: { clientOptions: { slackApiUrl: s.apiUrl } } });
  if (receiver instanceof HTTPReceiver) rejectFutureTimestamps(receiver, log);
  const app = new App({ token: s.botToken!, receiver, logger, clientOptions: { slackApiUrl: s.apiUrl }, ignoreSelf: true });
  const api = new SlackApi({ token: s.botToken!, apiUrl: s.apiUrl, log, tiers: opts.tiers ?? (s.rateLimits === 'off' ? NO_TIERS : SLACK_TIERS) });
  const store = new SlackStore(core.store.db, s.stateTtlMs);
  const service = new SlackService({ core, config, api, store, log });
  registerListeners(app, service);
  // Persist first, ack second: both receivers hand every delivery to app.processEvent, which acks
  // an event before any middleware runs; a question is in the ledger before that.
  const processEvent = app.processEvent.bind(app);
  app.processEvent = async (event) => {
    if (event.body.type === 'app_rate_limited') {
      // Slack stops sending events for a minute: acknowledge the notice, and say so in the log
      log.warn({ minuteRateLimited: event.body.minute_rate_limited }, 'slack: Slack rate-limited this app\'s events (app_rate_limited)');
      await event.ack();
      return;
    }
    const d = questionDelivery(event.body);
    if (d) store.recordDelivery(d.eventId, d.channel, event.body);
    return processEvent(event);
  };
  // a recovered delivery goes through Bolt again, acked to nobody
  const replay = (raw: unknown) => processEvent({ body: raw as Record<string, unknown>, ack: async () => undefined });
  const recover = (minIdleMs: number) => service.recoverOrphans(replay, minIdleMs).catch((e: unknown) => log.error({ err: e }, 'slack: recovering unanswered events failed'));
  app.error(async (e) => {
    log.error({ err: e }, 'slack: unhandled error in a listener');
  });
  let pruneTimer: NodeJS.Timeout | null = null;
  let sweepTimer: NodeJS.Timeout | null = null;
  return {
    app,
    service,
    api,
    store,
    async start() {
      pruneTimer = setInterval(() => store.prune(), 3600_000);
      pruneTimer.unref();
      // questions a previous process took but never answered are answered now (in the background),
      // and the sweep keeps doing so for those whose handling fails while this process lives
      void recover(0);
      const sweep = opts.orphanSweep ?? { everyMs: ORPHAN_SWEEP_MS, idleMs: ORPHAN_IDLE_MS };
      sweepTimer = setInterval(() => void recover(sweep.idleMs), sweep.everyMs);
      sweepTimer.unref();
      if (s.mode === 'http') {
        const server = (await (receiver as HTTPReceiver).start({ port: s.port, host: s.host })) as Server;
        const port = (server.address() as AddressInfo).port;
        log.info({ port, host: s.host, endpoint }, 'slack: HTTP receiver listening');
        return { port };
      }
      await app.start();
      log.info('slack: connected over Socket Mode');
      return { port: null };
    },
    async stop() {
      if (pruneTimer) clearInterval(pruneTimer);
      if (sweepTimer) clearInterval(sweepTimer);
      await app.stop().catch(() => undefined);
      // answers in flight finish before the limiters that carry their last calls stop
      await service.drain();
      await service.queue.stop();
      await api.stop();
    },
  };
}
