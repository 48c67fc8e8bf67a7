import type { Command } from 'commander';
import { openDatabase } from '../../store/db.js';
import { SlackStore } from '../../slack/state-store.js';
import { allows, scopeFromJson, type AccessContext } from '../../store/access.js';
import type { CliContext } from '../program.js';
import path from 'node:path';
import { configFrom, parsePositiveInt } from './shared.js';

export function register(program: Command, ctx: CliContext): void {
  program
    .command('feedback')
    .description('list the helpful / not helpful feedback given in Slack, with question, answer and evidence ids')
    .option('--limit <n>', 'most recent n', parsePositiveInt('--limit', 100_000), 50)
    .option('--json', 'machine-readable output')
    .option('--channel <id>', 'only feedback whose evidence this Slack channel may see')
    .option('--user <id>', 'only feedback whose evidence this user may see in a direct message')
    .action(async (opts: { limit: number; json?: boolean; channel?: string; user?: string }, cmd: Command) => {
      const config = configFrom(ctx, cmd);
      // the feedback tables only: no model needed to read them
      const db = openDatabase(path.join(config.dataDir, 'ragask.db'));
      try {
        let rows = new SlackStore(db, config.slack.stateTtlMs).listFeedback(opts.limit);
        if (opts.channel || opts.user) {
          // listed for a context: an entry is shown only if all its evidence is visible there
          const context: AccessContext = { kind: 'slack', channel: opts.channel ?? `D-${opts.user}`, user: opts.user ?? 'U-cli', isDM: !opts.channel };
          const scopes = new Map((db.prepare('SELECT c.id AS chunk, d.scope FROM chunks c JOIN documents d ON d.id = c.doc_id').all() as { chunk: number; scope: string }[]).map((r) => [r.chunk, scopeFromJson(r.scope)]));
          rows = rows.filter((r) => r.evidence.every((c) => scopes.has(c) && allows(scopes.get(c)!, context)));
        }
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
