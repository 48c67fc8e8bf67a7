import type { Command } from 'commander';
import { UserError } from '../../errors.js';
import {
  dueSources,
  readSourcesFile,
  statusCounts,
  syncPass,
  syncStatuses,
  type SyncSource,
  type SyncStatus,
} from '../../ingest/sync.js';
import type { Store } from '../../store/interfaces.js';
import { displaySource } from '../format.js';
import { progressBar } from '../progress.js';
import { configFrom, withCore } from './shared.js';
import type { CliContext } from '../context.js';
import type { Config } from '../../config.js';

/** The sources file named by --file or RAGASK_SOURCES_FILE; a clear line when neither is set. */
function sourcesOf(config: Config, file?: string): { file: string; sources: SyncSource[] } {
  const name = file ?? config.sourcesFile;
  if (!name)
    throw new UserError(
      'sync: no sources file: pass --file sources.yml or set RAGASK_SOURCES_FILE (README, "Keeping sources current")',
    );
  return { file: name, sources: readSourcesFile(name) };
}

/** One line per source: what its last pass did, when, and its first failure. */
function statusLine(source: SyncSource, status: SyncStatus | null): string {
  if (!status) return `${displaySource(source.path)}  never synced`;
  const counts = statusCounts(status);
  const error = status.error ? `\n    ${status.error}` : '';
  return `${displaySource(source.path)}  ${status.at.slice(0, 16)}Z  ${counts} (${(status.ms / 1000).toFixed(1)} s)${error}`;
}

/** Each source of the file with its last pass, for `sync --status` and `sources list`. */
export async function syncStatusLines(
  store: Store,
  config: Config,
  file?: string,
  read = sourcesOf(config, file),
): Promise<string[]> {
  const { file: name, sources } = read;
  const statuses = await syncStatuses(store, sources);
  return [
    `kept current by ${displaySource(name)}:`,
    ...statuses.map(({ source, status }) => `  ${statusLine(source, status)}`),
  ];
}

export function register(program: Command, ctx: CliContext): void {
  program
    .command('sync')
    .description(
      'one pass over the sources file (RAGASK_SOURCES_FILE or --file): each source ingested and pruned, with added / changed / unchanged / removed / failed per source',
    )
    .option('--file <sources.yml>', 'the sources file (default: RAGASK_SOURCES_FILE)')
    .option('--status', 'only show how each source last synced')
    .option('--due', "only the sources whose time has come (their `every` since their last sync): serve's schedule")
    .action(async (opts: { file?: string; status?: boolean; due?: boolean }, cmd: Command) => {
      const config = configFrom(ctx, cmd);
      const read = sourcesOf(config, opts.file);
      const { sources } = read;
      await withCore(ctx, config, async (core) => {
        if (opts.status) {
          ctx.out((await syncStatusLines(core.store, config, opts.file, read)).join('\n'));
          return;
        }
        const deps = { store: core.store, encoder: core.encoder, config, log: core.log, progress: progressBar() };
        // Ctrl-C (or serve stopping its pass) stops between batches: what is written stays consistent
        const stop = new AbortController();
        const onSignal = () => stop.abort();
        process.once('SIGINT', onSignal);
        process.once('SIGTERM', onSignal);
        const chosen = opts.due ? await dueSources(core.store, sources) : sources;
        const results = await syncPass(deps, chosen, stop.signal).finally(() => {
          process.off('SIGINT', onSignal);
          process.off('SIGTERM', onSignal);
        });
        ctx.out(results.map(({ source, status }) => statusLine(source, status)).join('\n'));
        if (results.some((r) => r.status.failed > 0)) process.exitCode = 1;
      });
    });
}
