import type { Command } from 'commander';
import { reembedAll } from '../../ingest/reindex.js';
import { Encoder } from '../../models/encoder.js';
import { openStore } from '../../store/open.js';
import { storeSettingsOf } from '../../core.js';
import { progressBar } from '../progress.js';
import { configFrom } from './shared.js';
import type { CliContext } from '../context.js';

export function register(program: Command, ctx: CliContext): void {
  program
    .command('reindex')
    .description(
      're-embed every stored window with the configured model (after changing RAGASK_MODEL or RAGASK_MODEL_VARIANT) and rebuild the index',
    )
    .action(async (_opts: unknown, cmd: Command) => {
      const config = configFrom(ctx, cmd);
      const encoder = await Encoder.load({
        modelsDir: config.modelsDir,
        model: config.model,
        variant: config.modelVariant,
        threads: config.threads,
      });
      try {
        const store = await openStore({
          ...storeSettingsOf(config),
          model: encoder.id,
          dimension: encoder.dimension,
          log: ctx.logger(config),
          allowModelMismatch: true,
        });
        try {
          const n = await reembedAll(store, encoder, progressBar());
          ctx.out(`re-embedded ${n} windows with ${encoder.id}; index rebuilt`);
        } finally {
          await store.close();
        }
      } finally {
        await encoder.release();
      }
    });
}
