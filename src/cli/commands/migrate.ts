import { type Command, InvalidArgumentError } from 'commander';
import { resolveModel } from '../../models/registry.js';
import { copyStore } from '../../store/copy.js';
import { openStore } from '../../store/open.js';
import { redactUrl } from '../../store/url.js';
import { UserError } from '../../errors.js';
import { progressBar } from '../progress.js';
import { configFrom } from './shared.js';
import type { CliContext } from '../context.js';

function parseDatabaseUrl(value: string): string {
  if (!/^postgres(ql)?:\/\/\S*$/.test(value))
    throw new InvalidArgumentError('--to must be a postgres:// or postgresql:// URL');
  return value;
}

export function register(program: Command, ctx: CliContext): void {
  program
    .command('migrate')
    .description(
      'copy the embedded store (RAGASK_DATA_DIR) into PostgreSQL: documents, chunks, window vectors (not re-embedded) and access scopes',
    )
    .requiredOption(
      '--to <url>',
      'the PostgreSQL database (pgvector 0.5 or newer) that RAGASK_DATABASE_URL will then name',
      parseDatabaseUrl,
    )
    .action(async (opts: { to: string }, cmd: Command) => {
      const config = configFrom(ctx, cmd);
      if (config.databaseUrl)
        throw new UserError(
          'ragask migrate copies the embedded store in RAGASK_DATA_DIR: unset RAGASK_DATABASE_URL while it runs, and give the target with --to',
        );
      // no model is loaded: the vectors are copied as they are, under the model they were made with
      const { manifest } = resolveModel(config.modelsDir, config.model, config.modelVariant);
      const model = {
        model: `${manifest.name}/${config.modelVariant}`,
        dimension: manifest.dimension ?? 384,
        hnsw: config.hnsw,
        log: ctx.logger(config),
      };
      const from = await openStore({ dataDir: config.dataDir, databaseUrl: null, ...model });
      try {
        const to = await openStore({ dataDir: config.dataDir, databaseUrl: opts.to, ...model });
        try {
          const r = await copyStore(from, to, progressBar());
          const skipped = r.unreadableScope.length
            ? `; ${r.unreadableScope.length} with an unreadable scope left out (fix them with \`ragask sources set\` and run again): ${r.unreadableScope.slice(0, 5).join(', ')}`
            : '';
          ctx.out(
            `copied ${r.copied} documents (${r.windows} windows) into ${redactUrl(opts.to)} in ${r.seconds.toFixed(1)} s, ${r.unchanged} already there${skipped}. Set RAGASK_DATABASE_URL to it to serve from PostgreSQL; the Slack state (threads, buttons, feedback) is not copied: serving from PostgreSQL starts it afresh there, and what is in ${config.dataDir} stays as it was.`,
          );
        } finally {
          await to.close();
        }
      } finally {
        await from.close();
      }
    });
}
