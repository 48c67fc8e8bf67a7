import type { Command } from 'commander';
import { openDatabase } from '../../store/db.js';
import { SlackStore } from '../../slack/state-store.js';
import type { CliContext } from '../program.js';
import path from 'node:path';
import { configFrom, parsePositiveInt } from './shared.js';

export function register(program: Command, ctx: CliContext): void {
  program
    .command('feedback')
    .description('list the helpful / not helpful feedback given in Slack, with question, answer and evidence ids')
    .option('--limit <n>', 'most recent n', parsePositiveInt('--limit', 100_000), 50)
    .option('--json', 'machine-readable output')
    .action(async (opts: { limit: number; json?: boolean }, cmd: Command) => {
      const config = configFrom(ctx, cmd);
      // the feedback tables only: no model needed to read them
      const db = openDatabase(path.join(config.dataDir, 'ragask.db'));
      try {
        const rows = new SlackStore(db, config.slack.stateTtlMs).listFeedback(opts.limit);
        if (opts.json) return ctx.out(JSON.stringify(rows, null, 2));
        if (rows.length === 0) return ctx.out('No feedback yet.');
        const helpful = rows.filter((r) => r.value === 'helpful').length;
        const lines = [`${rows.length} feedback entries (${helpful} helpful, ${rows.length - helpful} not helpful), newest first:`, ''];
        for (const r of rows) {
          lines.push(`${new Date(r.createdAt).toISOString()}  ${r.value === 'helpful' ? '+ helpful    ' : '- not helpful'}  ${r.user} in ${r.channel}`);
          lines.push(`  Q: ${r.question}`, `  A: ${r.answer}`, `  evidence chunks: ${r.evidence.join(', ') || '—'}`);
        }
        ctx.out(lines.join('\n'));
      } finally {
        db.close();
      }
    });
}
