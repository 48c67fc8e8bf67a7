import type { Command } from 'commander';
import { storeLocation } from '../../store/open.js';
import { configFrom, withCore } from './shared.js';
import type { CliContext } from '../context.js';

const mb = (n: number) => `${(n / 1048576).toFixed(1)} MB`;

export function register(program: Command, ctx: CliContext): void {
  program
    .command('stats')
    .description('document, chunk and window counts, model, and store sizes')
    .option('--json', 'machine-readable output')
    .action(async (opts: { json?: boolean }, cmd: Command) => {
      const config = configFrom(ctx, cmd);
      await withCore(ctx, config, async (core) => {
        const s = await core.store.stats();
        if (opts.json) {
          ctx.out(
            JSON.stringify(
              {
                ...s,
                dataDir: config.dataDir,
                backend: config.databaseUrl ? 'postgres' : 'sqlite',
                location: storeLocation(config),
              },
              null,
              2,
            ),
          );
          return;
        }
        ctx.out(
          [
            `store       ${config.databaseUrl ? `PostgreSQL ${storeLocation(config)}` : config.dataDir}`,
            `documents   ${s.documents}`,
            `chunks      ${s.chunks}`,
            `windows     ${s.windows}`,
            `model       ${s.model} (${s.dimension}-d)`,
            `index       ${s.indexSize} vectors, ${mb(s.indexBytes)} (${config.databaseUrl ? 'pgvector ' : ''}HNSW M=${config.hnsw.m}, efConstruction=${config.hnsw.efConstruction}, efSearch=${config.hnsw.efSearch})`,
            `database    ${mb(s.dbBytes)}`,
          ].join('\n'),
        );
      });
    });
}
