import net from 'node:net';
import fs from 'node:fs';
import { openCore, openStoreCore, storeSettingsOf, type Core } from '../../src/core.js';
import { resolveModel } from '../../src/models/registry.js';
import { seedFixtureDocuments } from './fake-engine.js';
import { openSlackState } from '../../src/slack/state/open.js';
import { ingest } from '../../src/ingest/ingest.js';
import { createLogger } from '../../src/log.js';
import { createSlackApp, type SlackAppHandle } from '../../src/slack/app.js';
import type { TierLimits } from '../../src/slack/api.js';
import { SAMPLE_DIR, tempDir, testConfig } from '../helpers.js';
import { eventBody, FakeSlack } from '../support/slack-stand-in.js';
import type { Config } from '../../src/config.js';
import { richTextOf } from './text-objects.js';
import type { SettingName } from '../../src/settings.js';
import type { EngineApi } from '../../src/engine/api.js';
import type { AnswerWriter } from '../../src/engine/writer/index.js';

export const SECRET = '0123456789abcdef0123456789abcdef';
const BOT = 'xoxb-1-test-bot-token';
export const APP_TOKEN = 'xapp-1-test-app-token';

export interface Harness {
  fake: FakeSlack;
  /** The store, the access resolver and the engine the app answers with (the real one, or a FakeEngine). */
  core: Pick<Core, 'store' | 'access' | 'close'> & { engine: EngineApi };
  slack: SlackAppHandle;
  port: number;
  dir: string;
  logs: string[];
  close(): Promise<void>;
}

/** The real core, with the sample corpus ingested unless told not to. */
async function sampleCore(config: Config, withSample: boolean): Promise<Core> {
  const core = await openCore(config);
  if (withSample) await ingest({ store: core.store, encoder: core.encoder, config }, [SAMPLE_DIR]);
  return core;
}

/** The store alone (no model) with the documents the fixture results cite, and a fake engine. */
async function fakeCore(config: Config, engine: EngineApi, seed: boolean): Promise<Harness['core']> {
  const core = await openStoreCore(config);
  if (seed)
    await seedFixtureDocuments(
      core.store,
      resolveModel(config.modelsDir, config.model, config.modelVariant).manifest.dimension ?? 384,
    );
  return { ...core, engine };
}

/**
 * The real Bolt app over loopback, talking to a fake Slack: on a sample-corpus core, or with
 * `engine` (a FakeEngine) on the store alone, so that no model is loaded.
 */
export async function startHarness(
  opts: {
    engine?: EngineApi;
    mode?: 'http' | 'socket';
    overrides?: Partial<Record<SettingName, unknown>>;
    fast?: boolean;
    dir?: string;
    ingestSample?: boolean;
    orphanSweep?: { everyMs: number; idleMs: number };
    tiers?: TierLimits;
    /** The Slack state's clock (button states expire by it). */
    clock?: () => number;
    /** The optional answer writer. */
    writer?: AnswerWriter;
  } = {},
): Promise<Harness> {
  const fake = new FakeSlack();
  await fake.start();
  if (opts.mode === 'socket') await fake.startSocketMode();
  const dir = opts.dir ?? tempDir();
  const config = testConfig(dir, {
    RAGASK_QUERY_CACHE_TTL_S: 0,
    SLACK_BOT_TOKEN: BOT,
    SLACK_SIGNING_SECRET: SECRET,
    SLACK_APP_TOKEN: APP_TOKEN,
    RAGASK_SLACK_MODE: opts.mode ?? 'http',
    RAGASK_SLACK_PORT: 0,
    RAGASK_SLACK_HOST: '127.0.0.1',
    RAGASK_SLACK_API_URL: fake.apiUrl,
    ...opts.overrides,
  });
  const core = opts.engine
    ? await fakeCore(config, opts.engine, opts.ingestSample !== false)
    : await sampleCore(config, opts.ingestSample !== false);
  const logs: string[] = [];
  const log = createLogger({
    level: 'debug',
    destination: { write: (l: string) => logs.push(l) } as unknown as NodeJS.WritableStream,
    secrets: [BOT, SECRET, APP_TOKEN],
  });
  // Real Slack tiers would make each test wait a second per message; one test checks the real spacing.
  const fastTiers =
    opts.fast !== false ? { tiers: { postMessagePerChannelMs: 20, tier3PerMinute: 1000, tier4PerMinute: 1000 } } : {};
  const state = await openSlackState(storeSettingsOf(config), config.slack.stateTtlMs, opts.clock);
  const slack = createSlackApp(core, state, config, log, {
    ...(opts.engine ? { engine: opts.engine } : {}),
    ...fastTiers,
    ...(opts.tiers ? { tiers: opts.tiers } : {}),
    ...(opts.orphanSweep ? { orphanSweep: opts.orphanSweep } : {}),
    ...(opts.writer ? { writer: opts.writer } : {}),
  });
  const { port } = await slack.start();
  return {
    fake,
    core,
    slack,
    port: port ?? 0,
    dir,
    logs,
    async close() {
      await slack.stop();
      await state.close();
      await core.close();
      await fake.stop();
      if (!opts.dir) fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** An @-mention of ragask by U1 in C1 (or `extra`'s channel), as Slack delivers it. */
export const mention = (text: string, ts: string, extra: Record<string, unknown> = {}) =>
  eventBody({ type: 'app_mention', user: 'U1', text: `<@UBOT> ${text}`, ts, channel: 'C1', event_ts: ts, ...extra });

/** The answer for a question: the last chat.update, with the answer in it, of the placeholder posted in `thread`. */
export async function answerIn(h: Harness, thread: string, channel = 'C1') {
  const post = await h.fake.waitFor(
    () =>
      h.fake
        .callsOf('chat.postMessage')
        .find((c) => c.args.thread_ts === thread && c.args.channel === channel && c.result),
    20_000,
    `placeholder in ${thread}`,
  );
  const ts = post.result!.ts;
  return h.fake.waitFor(
    () =>
      h.fake
        .callsOf('chat.update')
        .filter((c) => c.args.ts === ts && c.result && blocksText(c.args.blocks).includes('Confidence'))
        .at(-1),
    30_000,
    `answer update of ${String(ts)}`,
  );
}

/** The final text of a message: every section and context text of its last update. */
/** Everything the blocks hold, as JSON, then their rich text as a person reads it (see richTextOf). */
export function blocksText(blocks: unknown): string {
  const list = Array.isArray(blocks) ? (blocks as { type: string; elements?: unknown[] }[]) : [];
  const rich = list.filter((b) => b.type === 'rich_text').map(richTextOf);
  return [JSON.stringify(blocks ?? []), ...rich].join('\n');
}

/** The Redis the shared-limits tests use: RAGASK_TEST_REDIS_URL, by default the local one. */
export const TEST_REDIS_URL = process.env.RAGASK_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/** Whether something accepts connections at a Redis URL's host and port (within a second). */
export function redisAnswers(url: string = TEST_REDIS_URL): Promise<boolean> {
  const u = new URL(url);
  return new Promise((resolve) => {
    const socket = net.connect({ host: u.hostname, port: Number(u.port || 6379) });
    socket.setTimeout(1000);
    socket.once('connect', () => {
      socket.end();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
    socket.once('timeout', () => {
      socket.destroy();
      resolve(false);
    });
  });
}
