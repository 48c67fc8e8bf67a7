import type { Command } from 'commander';
import { checkSlackConfig, secretsOf, type Config } from '../../config.js';
import { openCore, openStoreCore, storeSettingsOf, writerOf, type Core, type StoreCore } from '../../core.js';
import { Encoder } from '../../models/encoder.js';
import { openSlackState } from '../../slack/state/open.js';
import { storeLocation } from '../../store/open.js';
import { EnginePool } from '../../workers/worker-pool.js';
import { createLogger, type Logger } from '../../log.js';
import { configFrom } from './shared.js';
import { progressBar } from '../progress.js';
import { warmUp } from '../../engine/warm-up.js';
import type { CliContext } from '../context.js';
import { writerReady } from './doctor-writer.js';
import { backgroundPasses } from './serve-sync.js';
import type { EngineApi } from '../../engine/api.js';

/** How long a stop waits for answers in flight before the process ends anyway. */
const DRAIN_MS = 10_000;

export function register(program: Command, ctx: CliContext): void {
  program
    .command('serve')
    .description(
      'run the Slack bot (Socket Mode by default, or HTTP with RAGASK_SLACK_MODE=http) on the configured stores',
    )
    .action(async (_opts: unknown, cmd: Command) => {
      const config = configFrom(ctx, cmd, {}, ['slack']);
      checkSlackConfig(config);
      const log = createLogger({ level: config.logLevel, secrets: secretsOf(config) });
      const stop = stopSignalOf();
      const stopSignal = stop.signal;
      const signalled = () => stop.signalled;
      // with engine workers, this thread only needs the store: the models load in the workers
      const core: StoreCore & { engine?: EngineApi } =
        config.engineWorkers > 0
          ? await openStoreCore(config, log, { indexProgress: progressBar() })
          : await openCore(config, log, { indexProgress: progressBar() });
      let closePool = () => Promise.resolve();
      let closeState = () => Promise.resolve();
      let releaseEncoder = () => Promise.resolve();
      let closeSync = () => Promise.resolve();
      try {
        if (signalled()) return;
        if ((await core.store.documents.counts()).documents === 0)
          log.warn(
            'the store is empty: ingest documents with `npx ragask ingest <paths>` (or `npm run demo` for the sample corpus)',
          );
        // the engine answers in worker threads, so this thread stays free to acknowledge within
        // Slack's 3 s and to talk to Slack; each worker answers one question at a time
        const pool =
          config.engineWorkers > 0
            ? await EnginePool.start({ config, size: config.engineWorkers, log, secrets: secretsOf(config) })
            : null;
        closePool = () => pool?.close() ?? Promise.resolve();
        if (signalled()) return;
        await Promise.race([warmEngine(pool ?? core.engine ?? null, pool?.size ?? 1, log), stopSignal]);
        if (signalled()) return;
        const state = await openSlackState(storeSettingsOf(config), config.slack.stateTtlMs);
        closeState = () => state.close();
        const sourceEncoder = await encoderHere(core, config);
        releaseEncoder = () => sourceEncoder?.release() ?? Promise.resolve();
        const encoder = 'encoder' in core ? (core as Core).encoder : sourceEncoder;
        const writer = encoder && (await writerReady(config, log)) ? writerOf(config, encoder, log) : null;
        const stopSync = backgroundPasses(config, log);
        closeSync = stopSync;
        // Bolt and its receivers load here, not with the CLI: about a second every other command would pay
        const { createSlackApp } = await import('../../slack/app.js');
        const slack = createSlackApp(core, state, config, log, {
          ...(pool ? { engine: pool, concurrency: pool.size } : {}),
          ...(sourceEncoder ? { sourceEncoder } : {}),
          writer,
        });
        const started = await Promise.race([
          slack.start().then((r) => ({ port: r.port })),
          stopSignal.then(() => null),
        ]);
        if (started) {
          process.stderr.write(
            `ragask: serving Slack (${config.slack.mode === 'http' ? `HTTP on ${config.slack.host}:${started.port}` : 'Socket Mode'}); store ${storeLocation(config)}; Ctrl-C to stop\n`,
          );
          await stopSignal;
        }
        await slack.stop();
      } finally {
        await closeSync();
        await closePool();
        await closeState();
        await releaseEncoder();
        await core.close();
      }
    });
}

/** One untimed question per engine before Slack connects, so the first person's is not the cold one. */
async function warmEngine(engine: EngineApi | null, parallel: number, log: Logger): Promise<void> {
  if (!engine) return;
  try {
    const ms = await warmUp(engine, parallel);
    log.info({ ms: Math.round(ms), engines: parallel }, 'engine warmed up');
  } catch (err) {
    log.warn({ err }, 'the warm-up question failed; the first question may be slow');
  }
}

/**
 * A stop signal obeyed in every state, loading and starting included (a Slack API that does not
 * answer must not hold the process): what is in flight gets DRAIN_MS, then the process ends.
 */
function stopSignalOf(): { signal: Promise<void>; readonly signalled: boolean } {
  const state = { signalled: false };
  const signal = new Promise<void>((resolve) => {
    const stop = () => {
      if (state.signalled) return;
      state.signalled = true;
      process.stderr.write('ragask: stopping…\n');
      setTimeout(() => {
        process.stderr.write(`ragask: still busy after ${DRAIN_MS / 1000} s; stopping now\n`);
        process.exit(1);
      }, DRAIN_MS).unref();
      resolve();
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  return {
    signal,
    get signalled() {
      return state.signalled;
    },
  };
}

/**
 * An encoder in this thread when the engine runs in workers and something here needs one: live
 * Slack sources embed their threads, and the writer's check reads with it.
 */
async function encoderHere(core: StoreCore, config: Config): Promise<Encoder | undefined> {
  const needed = (config.slack.sources.length > 0 || config.writer !== null) && !('encoder' in core);
  if (!needed) return undefined;
  return Encoder.load({ modelsDir: config.modelsDir, model: config.model, variant: config.modelVariant, threads: 1 });
}
