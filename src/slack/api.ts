import { createHash } from 'node:crypto';
import Bottleneck from 'bottleneck';
import { UserError } from '../errors.js';
import { lazyPackage } from '../lazy-package.js';
import {
  WebClient,
  type ChatPostMessageArguments,
  type ChatUpdateArguments,
  type ChatPostEphemeralArguments,
  type ChatStartStreamArguments,
  type ChatAppendStreamArguments,
  type ChatStopStreamArguments,
} from '@slack/web-api';
import type { HomeView } from '@slack/types';
import type { SlackMessage } from './source/message.js';
import { type Logger, silentLogger } from '../log.js';
import { boltLogger } from './bolt-logger.js';
import { postToResponseUrl } from './response-url.js';
import { isRateLimited, isTransient } from './api-errors.js';
import { emptyReservoir } from './tier-pause.js';

/** The limiter's job name of a response_url post. */
const RESPONSE_URL_JOB = 'response_url';

/**
 * Slack's Web API rate limits, per method tier (https://api.slack.com/apis/rate-limits):
 * chat.postMessage about one message per second per channel (short bursts tolerated); Tier 3
 * (chat.update) 50+ a minute; Tier 4 (chat.postEphemeral, assistant status) 100+ a minute.
 */
export interface TierLimits {
  postMessagePerChannelMs: number;
  tier3PerMinute: number;
  tier4PerMinute: number;
}

/** How often a deferred update checks whether the update tier is free again. */
const IDLE_RECHECK_MS = 1000;

export const SLACK_TIERS: TierLimits = { postMessagePerChannelMs: 1000, tier3PerMinute: 50, tier4PerMinute: 100 };

/** No pacing: for a local stand-in of Slack only (RAGASK_SLACK_RATE_LIMITS=off). 429s are still honoured. */
export const NO_TIERS: TierLimits = {
  postMessagePerChannelMs: 0,
  tier3PerMinute: 1_000_000,
  tier4PerMinute: 1_000_000,
};

export interface SlackApiOptions {
  token: string;
  apiUrl: string;
  log?: Logger;
  tiers?: TierLimits;
  /** Retries of a call that failed for another reason than a 429 (network, 5xx). */
  retries?: number;
  /**
   * A Redis that every replica of this app shares (RAGASK_REDIS_URL): the limiters keep their
   * state there (bottleneck's clustering), so the tiers hold for all replicas together. `scope`
   * separates apps (and tests) sharing one Redis; by default it is derived from the token.
   */
  shared?: { redisUrl: string; scope?: string };
}

/** How long start-up waits for the shared Redis before it says it cannot reach it. */
const REDIS_READY_MS = 5000;
/** With shared limits, a call's slot is freed after this long whatever became of its replica. */
const SHARED_JOB_EXPIRATION_MS = 15_000;
/** Shared limiter state idle this long is dropped from Redis: every tier's bucket refills within a minute. */
const SHARED_STATE_TTL_MS = 10 * 60_000;

/** Messages per page of history: Slack's recommended page size. */
const HISTORY_PAGE = 200;

/**
 * Every Web API call ragask makes, through bottleneck limiters shaped to those tiers. A 429 is not
 * an error here: the call waits the Retry-After Slack sent and goes again, as often as needed, so
 * nothing is dropped. Transient failures (network, 5xx) are retried a few times with backoff.
 */
export class SlackApi {
  readonly client: WebClient;
  private readonly postByChannel: Bottleneck.Group;
  private readonly tier3: Bottleneck;
  private readonly tier4: Bottleneck;
  /** The shared Redis behind the limiters, when replicas share their limits. */
  private readonly connection: Bottleneck.IORedisConnection | null;
  private readonly redisUrl: string | null;
  private readonly log: Logger;
  private readonly retries: number;
  /** Count of 429s honoured, for tests and stats. */
  rateLimited = 0;
  private seq = 0;

  /**
   * A job: a unique id (bottleneck refuses duplicates) that names the call in logs; with shared
   * limits, an expiration, so that a call of a replica that died while making it stops holding its
   * slot in Redis (a live call ends within the WebClient's 10 s timeout).
   */
  private job(what: string): Bottleneck.JobOptions {
    return { id: `${what}#${++this.seq}`, ...(this.connection ? { expiration: SHARED_JOB_EXPIRATION_MS } : {}) };
  }

  constructor(opts: SlackApiOptions) {
    const tiers = opts.tiers ?? SLACK_TIERS;
    this.log = opts.log ?? silentLogger;
    this.retries = opts.retries ?? 3;
    // rejectRateLimitedCalls: the WebClient reports a 429 instead of retrying on its own, so that the
    // limiter — which knows about every other call queued — decides when it goes again.
    // a timeout: one hung call must not hold its channel's queue forever; the logger: the app's own
    // (JSON, secrets scrubbed), not the WebClient's console
    this.client = new WebClient(opts.token, {
      slackApiUrl: opts.apiUrl,
      rejectRateLimitedCalls: true,
      retryConfig: { retries: 0 },
      timeout: 10_000,
      logger: boltLogger(this.log),
    });
    // replicas of one app share its token: its hash names their common limiters in Redis
    const scope = opts.shared
      ? (opts.shared.scope ?? createHash('sha256').update(opts.token).digest('hex').slice(0, 16))
      : '';
    this.redisUrl = opts.shared?.redisUrl ?? null;
    this.connection = opts.shared
      ? new Bottleneck.IORedisConnection({
          // ioredis loads only where replicas share their limits through Redis
          Redis: lazyPackage<typeof import('ioredis')>('ioredis')().Redis,
          clientOptions: opts.shared.redisUrl,
        } as Bottleneck.IORedisConnectionOptions)
      : null;
    const cluster = (name: string): Bottleneck.ConstructorOptions =>
      // keys idle for SHARED_STATE_TTL_MS go (a full bucket then is what a fresh one would be)
      this.connection
        ? {
            datastore: 'ioredis',
            connection: this.connection,
            id: `ragask:${scope}:${name}`,
            clearDatastore: false,
            timeout: SHARED_STATE_TTL_MS,
          }
        : {};
    this.postByChannel = new Bottleneck.Group({
      maxConcurrent: 1,
      minTime: tiers.postMessagePerChannelMs,
      ...cluster('post'),
    });
    this.postByChannel.on('created', (limiter) => this.onFailure(limiter));
    this.tier3 = this.perMinute(tiers.tier3PerMinute, cluster('tier3'));
    this.tier4 = this.perMinute(tiers.tier4PerMinute, cluster('tier4'));
  }

  /**
   * With a shared Redis: resolves once the limiters can reach it, or fails in one line naming
   * RAGASK_REDIS_URL (a replica that paced alone would break the limits the others keep).
   */
  async ready(): Promise<void> {
    if (!this.connection) return;
    const where = this.redisUrl!.replace(/\/\/[^@/]*@/, '//');
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer in ${REDIS_READY_MS / 1000} s`)), REDIS_READY_MS);
    });
    try {
      await Promise.race([Promise.all([this.tier3.ready(), this.tier4.ready()]), timeout]);
    } catch (e) {
      await this.connection.disconnect(false).catch(() => undefined);
      throw new UserError(
        `RAGASK_REDIS_URL: cannot reach Redis at ${where} (${(e as Error).message}); start it, point the setting at the Redis the replicas share, or leave it empty to pace Slack calls per process`,
        'config',
      );
    } finally {
      clearTimeout(timer);
    }
  }

  /** A token bucket: bursts of up to n calls, refilled one call every 60/n seconds. */
  private perMinute(n: number, cluster: Bottleneck.ConstructorOptions): Bottleneck {
    const b = new Bottleneck({
      reservoir: n,
      reservoirIncreaseAmount: 1,
      reservoirIncreaseInterval: Math.max(1, Math.floor(60_000 / n)),
      reservoirIncreaseMaximum: n,
      maxConcurrent: 4,
      ...cluster,
    });
    this.onFailure(b);
    return b;
  }

  /**
   * A 429 pauses the whole method tier, not just the call that got it: the bucket is emptied and
   * refills at the tier's pace after Retry-After; the call itself goes again after Retry-After.
   */
  private onFailure(limiter: Bottleneck): void {
    limiter.on('failed', (error: unknown, info: { retryCount: number; options: { id: string } }) => {
      // a response_url post has retried already (p-retry, in response-url.ts)
      if (info.options.id.startsWith(RESPONSE_URL_JOB)) return undefined;
      if (isRateLimited(error)) {
        this.rateLimited++;
        const seconds = Number.isFinite(error.retryAfter) && error.retryAfter > 0 ? error.retryAfter : 1;
        this.log.warn(
          { job: info.options.id, retryAfterS: seconds },
          'slack: rate limited (429); retrying after Retry-After',
        );
        void emptyReservoir(limiter);
        return seconds * 1000;
      }
      // only calls that can run twice without a second message: updates and the status
      const idempotent = /^(chat\.update|assistant\.)/.test(info.options.id);
      if (isTransient(error, idempotent) && info.retryCount < this.retries) return 500 * 2 ** info.retryCount;
      return undefined;
    });
  }

  postMessage(args: ChatPostMessageArguments): Promise<{ ts: string; channel: string }> {
    return this.postByChannel
      .key(args.channel)
      .schedule(this.job(`chat.postMessage:${args.channel}`), () => this.client.chat.postMessage(args))
      .then((r) => ({ ts: r.ts as string, channel: (r.channel as string) ?? args.channel }));
  }

  update(args: ChatUpdateArguments): Promise<void> {
    return this.tier3
      .schedule(this.job(`chat.update:${args.channel}:${args.ts}`), () => this.client.chat.update(args))
      .then(() => undefined);
  }

  /**
   * A written answer streamed into a thread (chat.startStream / appendStream / stopStream): the
   * start is paced as a post to its channel, the appends and the stop by tier 4 (callers append at
   * most about once a second).
   */
  startStream(args: ChatStartStreamArguments): Promise<string> {
    return this.postByChannel
      .key(args.channel)
      .schedule(this.job(`chat.startStream:${args.channel}`), () => this.client.chat.startStream(args))
      .then((r) => r.ts as string);
  }

  appendStream(args: ChatAppendStreamArguments): Promise<void> {
    return this.tier4
      .schedule(this.job(`chat.appendStream:${args.channel}`), () => this.client.chat.appendStream(args))
      .then(() => undefined);
  }

  stopStream(args: ChatStopStreamArguments): Promise<void> {
    return this.tier4
      .schedule(this.job(`chat.stopStream:${args.channel}`), () => this.client.chat.stopStream(args))
      .then(() => undefined);
  }

  postEphemeral(args: ChatPostEphemeralArguments): Promise<void> {
    return this.tier4
      .schedule(this.job(`chat.postEphemeral:${args.channel}`), () => this.client.chat.postEphemeral(args))
      .then(() => undefined);
  }

  /** A page of a channel's top-level messages newer than `oldest`, newest first (conversations.history, Tier 3). */
  history(
    channel: string,
    oldest: string | null,
    cursor: string | null,
  ): Promise<{ messages: SlackMessage[]; next: string | null }> {
    return this.tier3
      .schedule(this.job(`conversations.history:${channel}`), () =>
        this.client.conversations.history({
          channel,
          limit: HISTORY_PAGE,
          ...(oldest ? { oldest } : {}),
          ...(cursor ? { cursor } : {}),
        }),
      )
      .then((r) => ({
        messages: (r.messages ?? []) as SlackMessage[],
        next: r.response_metadata?.next_cursor || null,
      }));
  }

  /** A page of a thread: its root, then its replies in order (conversations.replies, Tier 3). */
  replies(
    channel: string,
    ts: string,
    cursor: string | null,
  ): Promise<{ messages: SlackMessage[]; next: string | null }> {
    return this.tier3
      .schedule(this.job(`conversations.replies:${channel}`), () =>
        this.client.conversations.replies({ channel, ts, limit: HISTORY_PAGE, ...(cursor ? { cursor } : {}) }),
      )
      .then((r) => ({
        messages: (r.messages ?? []) as SlackMessage[],
        next: r.response_metadata?.next_cursor || null,
      }));
  }

  /** A channel's name and whether it is private (conversations.info, Tier 3). */
  channelInfo(channel: string): Promise<{ name: string; isPrivate: boolean }> {
    return this.tier3
      .schedule(this.job(`conversations.info:${channel}`), () => this.client.conversations.info({ channel }))
      .then((r) => ({
        name: r.channel?.name ?? channel,
        isPrivate: !!(r.channel?.is_private || r.channel?.is_im || r.channel?.is_mpim),
      }));
  }

  /** A person's display name (users.info, Tier 4); their id when Slack does not say. */
  userName(user: string): Promise<string> {
    return this.tier4
      .schedule(this.job(`users.info:${user}`), () => this.client.users.info({ user }))
      .then((r) => r.user?.profile?.display_name || r.user?.real_name || r.user?.name || user)
      .catch(() => user);
  }

  /** The workspace's URL and the bot's own user id (auth.test). */
  identity(): Promise<{ url: string; botUserId: string | null }> {
    return this.tier4
      .schedule(this.job('auth.test'), () => this.client.auth.test())
      .then((r) => ({ url: r.url ?? 'https://slack.com/', botUserId: r.user_id ?? null }));
  }

  /** A person's Home tab (views.publish, Tier 4). */
  publishHome(user: string, view: HomeView): Promise<void> {
    return this.tier4
      .schedule(this.job(`views.publish:${user}`), () => this.client.views.publish({ user_id: user, view }))
      .then(() => undefined);
  }

  /** A message's permalink (chat.getPermalink, Tier 4); null when Slack has none for it. */
  permalink(channel: string, ts: string): Promise<string | null> {
    return this.tier4
      .schedule(this.job(`chat.getPermalink:${channel}`), () =>
        this.client.chat.getPermalink({ channel, message_ts: ts }),
      )
      .then((r) => (typeof r.permalink === 'string' ? r.permalink : null))
      .catch(() => null);
  }

  /** Assistant-thread status ("is looking through the documents…"); only for assistant threads. */
  setStatus(channel: string, threadTs: string, status: string): Promise<void> {
    return this.tier4
      .schedule(this.job(`assistant.threads.setStatus:${channel}`), () =>
        this.client.assistant.threads.setStatus({ channel_id: channel, thread_ts: threadTs, status }),
      )
      .then(() => undefined);
  }

  /** A reply through a slash command's or an action's response_url, paced by tier 4 and retried by p-retry (response-url.ts). */
  respond(responseUrl: string, body: Record<string, unknown>): Promise<void> {
    return this.tier4.schedule(this.job(RESPONSE_URL_JOB), () =>
      postToResponseUrl(responseUrl, body, {
        retries: this.retries,
        log: this.log,
        onRateLimited: () => {
          this.rateLimited++;
        },
      }),
    );
  }

  /**
   * Whether a chat.update now would wait: the tier's bucket is empty or updates are already queued.
   * Under a sustained burst an answer then goes out as a new message instead (see SlackService).
   */
  async updateBacklogged(): Promise<boolean> {
    const left = await this.tier3.currentReservoir();
    const c = this.tier3.counts();
    return (left !== null && left <= 0) || c.QUEUED > 0 || c.RECEIVED > 0;
  }

  private readonly whenIdle: ChatUpdateArguments[] = [];
  private stopped = false;

  /**
   * An update that may wait for a quiet moment (a placeholder saying the answer is below): sent
   * only while no other update waits, so it never delays an answer; dropped at shutdown.
   */
  updateWhenIdle(args: ChatUpdateArguments): void {
    this.whenIdle.push(args);
    if (this.whenIdle.length === 1) void this.flushWhenIdle();
  }

  private async flushWhenIdle(): Promise<void> {
    while (this.whenIdle.length && !this.stopped) {
      if (await this.updateBacklogged()) {
        await new Promise((r) => setTimeout(r, IDLE_RECHECK_MS).unref());
        continue;
      }
      await this.update(this.whenIdle[0]!).catch((e: unknown) =>
        this.log.warn({ err: e }, 'slack: a deferred update failed'),
      );
      this.whenIdle.shift();
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.whenIdle.length = 0;
    await Promise.all([this.tier3.stop({ dropWaitingJobs: false }), this.tier4.stop({ dropWaitingJobs: false })]);
    await Promise.all(this.postByChannel.limiters().map((l) => l.limiter.stop({ dropWaitingJobs: false })));
    await this.connection?.disconnect(true);
  }
}
