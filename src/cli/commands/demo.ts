import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Command } from 'commander';
import { ingest } from '../../ingest/ingest.js';
import { LOCAL } from '../../store/access.js';
import { progressBar } from '../progress.js';
import { renderAnswer, renderTrace } from '../render.js';
import { configFrom, withCore } from './shared.js';
import type { CliContext } from '../context.js';

/** The sample corpus shipped with ragask (data/sample beside the package). */
export const SAMPLE_DIR = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '..',
  '..',
  '..',
  'data',
  'sample',
);

const DEMO_QUESTIONS = [
  'Who leads the project whose drone lost telemetry on 2024-03-14?',
  'Which calibration offset applies at −20 °C to the temperature sensor used in Project Falcon?',
];

export function register(program: Command, ctx: CliContext): void {
  program
    .command('demo')
    .description(
      'ingest the sample corpus (data/sample) and answer multi-hop sample questions with citations; no Slack needed',
    )
    .option('--question <text>', 'ask this instead of the sample questions')
    .option('--trace', 'also print every hop')
    .action(async (opts: { question?: string; trace?: boolean }, cmd: Command) => {
      const config = configFrom(ctx, cmd);
      await withCore(ctx, config, async (core) => {
        const report = await ingest(
          { store: core.store, encoder: core.encoder, config, log: core.log, progress: progressBar() },
          [SAMPLE_DIR],
        );
        const c = await core.store.documents.counts();
        ctx.out(
          `Sample corpus: ${path.relative(process.cwd(), SAMPLE_DIR) || SAMPLE_DIR} → ${config.dataDir} (${report.added + report.updated} documents ingested now, ${report.unchanged} already there; ${c.documents} documents, ${c.chunks} chunks, ${c.windows} windows; model ${core.encoder.id})`,
        );
        for (const f of report.failed)
          process.stderr.write(`ragask: ${f.file}${f.line ? `:${f.line}` : ''}: ${f.reason}\n`);
        for (const q of opts.question ? [opts.question] : DEMO_QUESTIONS) {
          const r = await core.engine.run(q, LOCAL);
          ctx.out(`\n${'═'.repeat(78)}\n${renderAnswer(r, 5)}${opts.trace ? `\n${renderTrace(r)}` : ''}`);
        }
        ctx.out(`\nAsk your own: npx ragask ask "…" [--trace]   ·   Slack: see README (npm start)`);
      });
    });
}
