import type { Command } from 'commander';
import { ingest } from '../../ingest/ingest.js';
import { withIngestEncoder } from '../../workers/encoder-pool.js';
import { parseScope } from '../../store/access.js';
import { progressBar } from '../progress.js';
import { displaySource } from '../format.js';
import { configFrom, withCore } from './shared.js';
import { ingestSlack, slackChannels } from './ingest-slack.js';
import { UserError } from '../../errors.js';
import type { CliContext } from '../context.js';
import type { Config } from '../../config.js';
import type { Core } from '../../core.js';
import type { Scope } from '../../store/access.js';

interface IngestFlags {
  prune?: boolean;
  baseUrl?: string;
  webUrl?: string;
  scope?: string;
  slack?: string;
}

export function register(program: Command, ctx: CliContext): void {
  program
    .command('ingest')
    .description(
      'ingest Markdown (.md .markdown .mdx), AsciiDoc (.adoc .asciidoc), text (.txt .text), reStructuredText (.rst, or .txt written in it), HTML (.html .htm), PDF, Word (.docx), CSV (a table, each row an entry) and .jsonl corpora ({id,title,text} per line); a Confluence space export or a Notion "Markdown & CSV" export (the folder or its .zip) is read as its pages. Unchanged files are skipped',
    )
    .argument('[paths...]', 'files, folders or glob patterns')
    .option(
      '--slack <channels>',
      'also read these Slack channels (C0123,C0456): each thread a document, only what is new since the last run',
    )
    .option('--prune', 'remove stored documents under these paths that no longer exist')
    .option(
      '--base-url <url>',
      "link citations to <url>/<path relative to the folder>; for a Confluence export, the site's address (https://acme.atlassian.net/wiki): pages link to <url>/spaces/<KEY>/pages/<id>",
    )
    .option(
      '--web-url <template>',
      'for a git clone: link each file to its hosted view at the ingested commit, e.g. https://github.com/org/repo/blob/{commit}/{path}',
    )
    .option(
      '--scope <scope>',
      'who may see these sources: public, channel:<id>[,<id>…] or user:<id> (default for new sources: RAGASK_DEFAULT_SCOPE, public unless set)',
    )
    .action(async (paths: string[], opts: IngestFlags, cmd: Command) => {
      const scope = opts.scope ? parseScope(opts.scope) : undefined;
      const channels = opts.slack ? slackChannels(opts.slack) : [];
      if (!paths.length && !channels.length)
        throw new UserError('ingest: name files or folders to ingest, or Slack channels with --slack C0123');
      const config = configFrom(ctx, cmd, {}, channels.length ? ['slack'] : []);
      await withCore(ctx, config, async (core) => {
        const controller = new AbortController();
        let interrupts = 0;
        const onSignal = () => {
          if (++interrupts > 1) process.exit(130);
          process.stderr.write(
            '\nragask: stopping after the current batch (press Ctrl-C again to quit now; the next run resumes)\n',
          );
          controller.abort();
        };
        process.on('SIGINT', onSignal);
        process.on('SIGTERM', onSignal);
        try {
          if (channels.length) await ingestSlack(ctx, config, core, channels, scope, controller.signal);
          if (!paths.length) return;
          await ingestFiles(ctx, config, core, paths, { ...opts, signal: controller.signal, scope });
        } finally {
          process.off('SIGINT', onSignal);
          process.off('SIGTERM', onSignal);
        }
      });
    });
}

/** The files and folders ingested (the encoder in a worker thread, RAGASK_INGEST_ENCODER), and what came of it. */
async function ingestFiles(
  ctx: CliContext,
  config: Config,
  core: Core,
  paths: string[],
  opts: Omit<IngestFlags, 'scope' | 'slack'> & { signal: AbortSignal; scope: Scope | undefined },
): Promise<void> {
  const report = await withIngestEncoder(config, core.encoder.dimension, (batchEncoder) =>
    ingest(
      { store: core.store, encoder: core.encoder, batchEncoder, config, log: core.log, progress: progressBar() },
      paths,
      {
        prune: !!opts.prune,
        baseUrl: opts.baseUrl ?? null,
        webUrl: opts.webUrl ?? null,
        signal: opts.signal,
        ...(opts.scope ? { scope: opts.scope } : {}),
      },
    ),
  );
  for (const f of report.failed)
    process.stderr.write(`ragask: ${displaySource(f.file)}${f.line ? `:${f.line}` : ''}: ${f.reason}\n`);
  for (const f of report.skipped)
    process.stderr.write(`ragask: warning: ${displaySource(f.file)}: ${f.reason} (skipped)\n`);
  const c = await core.store.documents.counts();
  ctx.out(
    `ingested ${report.added} new, ${report.updated} changed, ${report.unchanged} unchanged${report.rescoped ? ` (${report.rescoped} re-scoped)` : ''}, ${report.removed} removed, ${report.skipped.length ? `${report.skipped.length} empty skipped, ` : ''}${report.failed.length} failed ` +
      `(${report.chunks} chunks, ${report.windows} windows embedded in ${report.seconds.toFixed(1)} s); store: ${c.documents} documents, ${c.chunks} chunks, ${c.windows} windows`,
  );
  if (report.interrupted) {
    ctx.out('interrupted: run the same command again to finish');
    process.exitCode = 130;
  } else if (report.failed.length) process.exitCode = 1;
}
