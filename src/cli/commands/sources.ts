import os from 'node:os';
import path from 'node:path';
import type { Command } from 'commander';
import picomatch from 'picomatch';
import { UserError } from '../../errors.js';
import { formatScope, parseScope } from '../../store/access.js';
import type { DocumentRow, SourceAction } from '../../store/types.js';
import { displaySource } from '../format.js';
import { configFrom, withCore } from './shared.js';
import type { CliContext } from '../context.js';
import type { Core } from '../../core.js';
import { syncStatusLines } from './sync.js';

export function register(program: Command, ctx: CliContext): void {
  const sources = program.command('sources').description('list ingested sources with their access scope, or change it');
  registerList(sources, ctx);
  registerSet(sources, ctx);
  registerAdminActions(sources, ctx);
}

interface ListOptions {
  json?: boolean;
  channel?: string;
  user?: string;
}

function registerList(sources: Command, ctx: CliContext): void {
  sources
    .command('list', { isDefault: true })
    .description('every source with its scope (who may see it)')
    .option('--json', 'machine-readable output')
    .option('--channel <id>', 'only what this Slack channel can see')
    .option('--user <id>', 'only what this user can see in a direct message')
    .action(async (opts: ListOptions, cmd: Command) => {
      const config = configFrom(ctx, cmd);
      await withCore(ctx, config, (core) => listSources(ctx, core, opts));
    });
}

function registerSet(sources: Command, ctx: CliContext): void {
  sources
    .command('set')
    .description('change the scope of stored sources: paths, folders (everything under them) or glob patterns')
    .argument('<sources...>', 'source paths, folders or globs (as ingested)')
    .requiredOption('--scope <scope>', 'public, channel:<id>[,<id>…] or user:<id>')
    .action(async (patterns: string[], opts: { scope: string }, cmd: Command) => {
      const scope = parseScope(opts.scope);
      const config = configFrom(ctx, cmd);
      await withCore(ctx, config, async (core) => {
        const docs = matchSources(patterns, await core.store.documents.listDocuments());
        const n = await core.store.access.setScope(
          docs.map((d) => d.id),
          scope,
        );
        ctx.out(`${n} source(s) now ${formatScope(scope)}`);
      });
    });
}

/** hide, demote, restore. */
function registerAdminActions(sources: Command, ctx: CliContext): void {
  for (const [action, what] of ADMIN_ACTIONS) {
    sources
      .command(action)
      .description(what)
      .argument('<sources...>', 'source paths, folders or globs (as ingested)')
      .option('--by <who>', 'who is acting, for the log (default: this login)')
      .action(async (patterns: string[], opts: { by?: string }, cmd: Command) => {
        const config = configFrom(ctx, cmd);
        await withCore(ctx, config, async (core) => {
          const docs = matchSources(patterns, await core.store.documents.listDocuments());
          const by = opts.by ?? `cli:${os.userInfo().username}`;
          for (const d of docs) await core.store.access.flagSource({ source: d.source, action, by, at: Date.now() });
          ctx.out(`${docs.length} source(s) ${ACTION_DONE[action]} (by ${by})`);
        });
      });
  }
}

/** `sources list`: every source with its scope and flag, and the latest admin actions. */
async function listSources(ctx: CliContext, core: Core, opts: ListOptions): Promise<void> {
  const access =
    opts.channel || opts.user
      ? await core.access.resolve({
          kind: 'slack',
          channel: opts.channel ?? `D-${opts.user}`,
          user: opts.user ?? 'U-cli',
          isDM: !opts.channel,
        })
      : null;
  const docs = (await core.store.documents.listDocuments()).filter((d) => !access || access.allowDoc(d.id));
  const flags = new Map((await core.store.access.sourceFlags()).map((f) => [f.source, f]));
  const flagOf = (source: string) => {
    const f = flags.get(source);
    return f ? `${ACTION_DONE[f.action]} by ${f.by} ${new Date(f.at).toISOString().slice(0, 16)}Z` : '';
  };
  if (opts.json) {
    ctx.out(
      JSON.stringify(
        docs.map((d) => ({
          id: d.id,
          source: d.source,
          title: d.title,
          scope: d.scope ? formatScope(d.scope) : 'unreadable',
          flag: flags.get(d.source) ?? null,
        })),
        null,
        2,
      ),
    );
    return;
  }
  const width = Math.min(60, Math.max(6, ...docs.map((d) => displaySource(d.source).length)));
  const actions = await core.store.access.sourceActions(RECENT_ACTIONS);
  ctx.out(
    [
      `${'source'.padEnd(width)}  scope`,
      ...docs.map((d) =>
        [
          `${displaySource(d.source).padEnd(width)}  ${d.scope ? formatScope(d.scope) : 'unreadable (shown nowhere)'}`,
          flagOf(d.source),
        ]
          .filter(Boolean)
          .join('  '),
      ),
      '',
      `${docs.length} source(s)`,
      ...(actions.length
        ? [
            '',
            'recent admin actions:',
            ...actions.map(
              (a) =>
                `  ${new Date(a.at).toISOString().slice(0, 16)}Z  ${a.action.padEnd(7)}  ${displaySource(a.source)}  by ${a.by}`,
            ),
          ]
        : []),
      ...(core.config.sourcesFile ? ['', ...(await syncStatusLines(core.store, core.config))] : []),
    ].join('\n'),
  );
}

/** Admin actions `sources list` shows, newest first. */
const RECENT_ACTIONS = 10;

/** What an admin can do to a source, as `ragask sources <action>`. */
const ADMIN_ACTIONS: [SourceAction | 'restore', string][] = [
  ['hide', 'remove sources from every answer at once (kept in the store; `restore` undoes it)'],
  ['demote', 'rank sources lower in every answer (`restore` undoes it)'],
  ['restore', 'undo hide or demote'],
];
const ACTION_DONE: Record<SourceAction | 'restore', string> = {
  hide: 'hidden',
  demote: 'demoted',
  restore: 'restored',
};

/** The stored documents that paths, folders (everything under them) or globs name; each must name one. */
function matchSources(patterns: readonly string[], docs: readonly DocumentRow[]): DocumentRow[] {
  const out = new Map<number, DocumentRow>();
  for (const p of patterns) {
    const abs = path.resolve(p);
    // picomatch: the glob matcher fast-glob itself uses
    const matcher = picomatch.scan(p).isGlob ? picomatch(abs, { dot: true }) : null;
    const hits = docs.filter((d) => {
      const file = d.source.split('#')[0]!;
      return matcher
        ? matcher(file)
        : file === abs ||
            file.startsWith(abs.endsWith(path.sep) ? abs : abs + path.sep) ||
            d.source === abs ||
            d.source === p;
    });
    if (hits.length === 0)
      throw new UserError(`${p}: no stored source matches (see \`ragask sources list\`); nothing was changed`);
    for (const d of hits) out.set(d.id, d);
  }
  return [...out.values()];
}
