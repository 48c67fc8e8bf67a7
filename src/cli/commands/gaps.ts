import type { Command } from 'commander';
import { InvalidArgumentError } from 'commander';
import { gapQuestions, gapReport, saveGapReport, type GapGroup } from '../../engine/gaps.js';
import { UserError } from '../../errors.js';
import { openSlackState } from '../../slack/state/open.js';
import { storeSettingsOf, type Core } from '../../core.js';
import type { AccessContext } from '../../store/access.js';
import { displaySource } from '../format.js';
import { configFrom, withCore } from './shared.js';
import type { CliContext } from '../context.js';
import type { Config } from '../../config.js';

const MAX_QUESTIONS = 5_000;

interface GapOptions {
  since: number;
  json?: boolean;
  csv?: boolean;
  channel?: string;
  user?: string;
  all?: boolean;
  save?: boolean;
}

const parseSince = (v: string) => {
  const m = /^(\d+)\s*([hd])$/.exec(v.trim());
  if (!m) throw new InvalidArgumentError(`--since must be hours or days, such as 24h or 7d (got ${JSON.stringify(v)})`);
  return Number(m[1]) * (m[2] === 'h' ? 3_600_000 : 86_400_000);
};

/** The context a listing is for: questions asked there only, and documents visible there; --all: every one. */
function contextOf(opts: GapOptions): AccessContext | null {
  if (opts.all) return null;
  return { kind: 'slack', channel: opts.channel ?? `D-${opts.user}`, user: opts.user ?? 'U-cli', isDM: !opts.channel };
}

async function report(core: Core, config: Config, opts: GapOptions): Promise<GapGroup[]> {
  const state = await openSlackState(storeSettingsOf(config), config.slack.stateTtlMs);
  const asked = await state.threads.questionsSince(Date.now() - opts.since, MAX_QUESTIONS).finally(() => state.close());
  // a question is listed in its own context only: its channel, or its asker's direct messages
  const mine = asked.filter((q) =>
    opts.all ? true : opts.channel ? q.channel === opts.channel : q.user === opts.user && q.channel.startsWith('D'),
  );
  const context = contextOf(opts);
  const access = context ? await core.access.resolve(context) : undefined;
  return gapReport(
    gapQuestions(mine),
    (texts) => core.encoder.encode(texts),
    async (question) => {
      const r = await core.retriever.retrieve(question, { k: 5, ...(access ? { access } : {}) });
      return r.candidates.map((c) => ({ title: c.chunk.doc.title, source: c.chunk.doc.source, url: c.chunk.doc.url }));
    },
  );
}

const csvCell = (s: string) => (/[",\n]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s);

function render(groups: readonly GapGroup[], opts: GapOptions): string {
  if (opts.json) return JSON.stringify(groups, null, 2);
  if (opts.csv)
    return [
      'group,count,question,channel,asked_at,why,closest',
      ...groups.flatMap((g, i) =>
        g.questions.map((q) =>
          [
            String(i + 1),
            String(g.count),
            q.question,
            q.channel,
            new Date(q.askedAt).toISOString(),
            q.why,
            g.closest.map((d) => d.title).join('; '),
          ]
            .map(csvCell)
            .join(','),
        ),
      ),
    ].join('\n');
  if (!groups.length) return 'no gaps: every question in this period got a definite answer nobody marked not helpful';
  return groups
    .map((g, i) =>
      [
        `${i + 1}. ${g.count} question(s); closest: ${g.closest.map((d) => `${d.title} (${displaySource(d.source)})`).join(', ') || 'nothing'}`,
        ...g.examples.map((e) => `     "${e}"`),
      ].join('\n'),
    )
    .join('\n');
}

export function register(program: Command, ctx: CliContext): void {
  program
    .command('gaps')
    .description(
      'the questions the documents did not answer (no definite answer, or marked not helpful), grouped by topic, with the closest documents',
    )
    .option('--since <period>', 'how far back: hours or days (24h, 7d)', parseSince, 7 * 86_400_000)
    .option('--json', 'machine-readable output')
    .option('--csv', 'one row per question, with its group')
    .option('--channel <id>', 'questions asked in this channel, with documents it may see')
    .option('--user <id>', 'questions this user asked in direct messages with ragask')
    .option('--all', 'every question, from every channel and DM (an admin listing: it shows private questions)')
    .option(
      '--save',
      "with --all: also keep the report in the store for admins' App Home, which shows each admin what they may see",
    )
    .action(async (opts: GapOptions, cmd: Command) => {
      if (opts.save && !opts.all)
        throw new UserError('ragask gaps --save keeps the report of every channel and DM: use it with --all');
      if ([opts.channel, opts.user, opts.all].filter((x) => x !== undefined).length !== 1)
        throw new UserError(
          'ragask gaps: choose one of --channel <id>, --user <id> or --all (an admin listing of every channel and DM)',
        );
      const config = configFrom(ctx, cmd);
      await withCore(ctx, config, async (core) => {
        const groups = await report(core, config, opts);
        if (opts.save) await saveGapReport(core.store, { at: new Date().toISOString(), sinceMs: opts.since, groups });
        ctx.out(render(groups, opts));
      });
    });
}
