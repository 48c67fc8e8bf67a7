import path from 'node:path';
import type { Command } from 'commander';
import picomatch from 'picomatch';
import { UserError } from '../../errors.js';
import { formatScope, parseScope } from '../../store/access.js';
import type { CliContext } from '../program.js';
import { displaySource } from '../format.js';
import { configFrom, withCore } from './shared.js';

export function register(program: Command, ctx: CliContext): void {
  const sources = program.command('sources').description('list ingested sources with their access scope, or change it');
  sources
    .command('list', { isDefault: true })
    .description('every source with its scope (who may see it)')
    .option('--json', 'machine-readable output')
    .option('--channel <id>', 'only what this Slack channel can see')
    .option('--user <id>', 'only what this user can see in a direct message')
    .action(async (opts: { json?: boolean; channel?: string; user?: string }, cmd: Command) => {
      const config = configFrom(ctx, cmd);
      await withCore(ctx, config, async (core) => {
        const access =
          opts.channel || opts.user
            ? await core.access.resolve({
                kind: 'slack',
                channel: opts.channel ?? `D-${opts.user}`,
                user: opts.user ?? 'U-cli',
                isDM: !opts.channel,
              })
            : null;
        const docs = (await core.store.listDocuments()).filter((d) => !access || access.allowDoc(d.id));
        if (opts.json) {
          ctx.out(
            JSON.stringify(
              docs.map((d) => ({
                id: d.id,
                source: d.source,
                title: d.title,
                scope: d.scope ? formatScope(d.scope) : 'unreadable',
              })),
              null,
              2,
            ),
          );
          return;
        }
        const width = Math.min(60, Math.max(6, ...docs.map((d) => displaySource(d.source).length)));
        ctx.out(
          [
            `${'source'.padEnd(width)}  scope`,
            ...docs.map(
              (d) =>
                `${displaySource(d.source).padEnd(width)}  ${d.scope ? formatScope(d.scope) : 'unreadable (shown nowhere)'}`,
            ),
            '',
            `${docs.length} source(s)`,
          ].join('\n'),
        );
      });
    });
  sources
    .command('set')
    .description('change the scope of stored sources: paths, folders (everything under them) or glob patterns')
    .argument('<sources...>', 'source paths, folders or globs (as ingested)')
    .requiredOption('--scope <scope>', 'public, channel:<id>[,<id>…] or user:<id>')
    .action(async (patterns: string[], opts: { scope: string }, cmd: Command) => {
      const scope = parseScope(opts.scope);
      const config = configFrom(ctx, cmd);
      await withCore(ctx, config, async (core) => {
        const docs = await core.store.listDocuments();
        const ids = new Set<number>();
        for (const p of patterns) {
          const abs = path.resolve(p);
          // picomatch: the glob matcher fast-glob itself uses
          const matcher = picomatch.scan(p).isGlob ? picomatch(abs, { dot: true }) : null;
          const hits = docs.filter((d) => {
            const file = d.source.split('#')[0]!;
            return matcher
              ? matcher(file)
              : file === abs || file.startsWith(abs.endsWith(path.sep) ? abs : abs + path.sep) || d.source === abs;
          });
          if (hits.length === 0)
            throw new UserError(`${p}: no stored source matches (see \`ragask sources list\`); nothing was changed`);
          for (const d of hits) ids.add(d.id);
        }
        const n = await core.store.setScope([...ids], scope);
        ctx.out(`${n} source(s) now ${formatScope(scope)}`);
      });
    });
}
