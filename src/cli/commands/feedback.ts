import type { Command } from 'commander';
import type { FeedbackContext, FeedbackReason } from '../../slack/state/interfaces.js';
import { openSlackState } from '../../slack/state/open.js';
import { openStoreCore, storeSettingsOf } from '../../core.js';
import { UserError } from '../../errors.js';
import { allows, type AccessContext } from '../../store/access.js';
import { configFrom, parsePositiveInt } from './shared.js';
import type { CliContext } from '../context.js';

/** Why it was not helpful, as the listing says it. */
const REASON_TEXT: Record<FeedbackReason, string> = {
  wrong: 'wrong',
  outdated: 'out of date',
  not_asked: 'not what was asked',
};

export function register(program: Command, ctx: CliContext): void {
  program
    .command('feedback')
    .description('list the helpful / not helpful feedback given in Slack, with question, answer and evidence ids')
    .option('--limit <n>', 'most recent n', parsePositiveInt('--limit', 100_000), 50)
    .option('--json', 'machine-readable output')
    .option('--channel <id>', 'feedback given in this channel, whose evidence the channel may see')
    .option('--user <id>', 'feedback this user gave in their direct messages with ragask')
    .option('--all', 'every entry, from every channel and DM (an admin listing: it shows private questions)')
    .action(
      async (opts: { limit: number; json?: boolean; channel?: string; user?: string; all?: boolean }, cmd: Command) => {
        const chosen = [opts.channel, opts.user, opts.all].filter((x) => x !== undefined).length;
        if (chosen !== 1)
          throw new UserError(
            'ragask feedback: choose one of --channel <id>, --user <id> or --all (an admin listing of every channel and DM)',
          );
        const config = configFrom(ctx, cmd);
        // the store alone: no model is loaded to read feedback
        const { store, close } = await openStoreCore(config);
        try {
          const givenIn: FeedbackContext | null = opts.channel
            ? { channel: opts.channel }
            : opts.user
              ? { dmOf: opts.user }
              : null;
          const state = await openSlackState(storeSettingsOf(config), config.slack.stateTtlMs);
          let rows = await state.feedback.listFeedback(opts.limit, givenIn).finally(() => state.close());
          if (givenIn) {
            // and, listed for a context, only entries whose evidence is all visible there (a chunk no longer stored is not)
            const context: AccessContext = {
              kind: 'slack',
              channel: opts.channel ?? `D-${opts.user}`,
              user: opts.user ?? 'U-cli',
              isDM: !opts.channel,
            };
            const chunks = await store.documents.getChunks([...new Set(rows.flatMap((r) => r.evidence))]);
            const scopes = await store.access.scopes();
            const visible = (chunkId: number) => {
              const scope = scopes.get(chunks.get(chunkId)?.docId ?? -1);
              return !!scope && allows(scope, context);
            };
            rows = rows.filter((r) => r.evidence.every(visible));
          }
          if (opts.json) return ctx.out(JSON.stringify(rows, null, 2));
          if (rows.length === 0) return ctx.out(opts.all ? 'No feedback yet.' : 'No feedback in that context.');
          const helpful = rows.filter((r) => r.value === 'helpful').length;
          const where = opts.all
            ? 'from every channel and DM (admin listing)'
            : opts.channel
              ? `given in ${opts.channel}`
              : `given by ${opts.user} in direct messages`;
          const lines = [
            `${rows.length} feedback entries ${where} (${helpful} helpful, ${rows.length - helpful} not helpful), newest first:`,
            '',
          ];
          for (const r of rows) {
            lines.push(
              `${new Date(r.createdAt).toISOString()}  ${r.value === 'helpful' ? '+ helpful    ' : '- not helpful'}${r.reason ? ` (${REASON_TEXT[r.reason]})` : ''}  ${r.user} in ${r.channel}`,
            );
            lines.push(`  Q: ${r.question}`, `  A: ${r.answer}`, `  evidence chunks: ${r.evidence.join(', ') || '—'}`);
          }
          ctx.out(lines.join('\n'));
        } finally {
          await close();
        }
      },
    );
}
