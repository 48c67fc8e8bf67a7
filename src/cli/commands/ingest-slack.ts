import { UserError } from '../../errors.js';
import { ingestDocuments } from '../../ingest/ingest.js';
import type { Config } from '../../config.js';
import type { Core } from '../../core.js';
import { formatScope, type Scope } from '../../store/access.js';
import { NO_TIERS, SLACK_TIERS, SlackApi } from '../../slack/api.js';
import { channelCursor, channelPlace, readChannel, userNames } from '../../slack/source/channels.js';
import { progressBar } from '../progress.js';
import type { CliContext } from '../context.js';

const CHANNEL_ID = /^[CGD][A-Z0-9]{2,}$/;

/** The channel ids of `--slack C0123,C0456`, or one line saying what is wrong. */
export function slackChannels(list: string): string[] {
  const ids = list
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean);
  if (!ids.length || !ids.every((id) => CHANNEL_ID.test(id)))
    throw new UserError(
      `--slack: expected channel ids separated by commas, such as C0123ABCD (got ${JSON.stringify(list)})`,
    );
  return [...new Set(ids)];
}

/**
 * `ragask ingest --slack C…`: each channel's threads since the last run, as documents scoped to that
 * channel (or `--scope`; public is refused for a private channel), through the same rate limits as serve.
 */
export async function ingestSlack(
  ctx: CliContext,
  config: Config,
  core: Core,
  channels: readonly string[],
  scope: Scope | undefined,
  signal: AbortSignal,
): Promise<void> {
  const s = config.slack;
  if (!s.botToken)
    throw new UserError(
      'SLACK_BOT_TOKEN: not set; `ingest --slack` reads channels with the bot token, as `serve` does (see .env.example)',
      'config',
    );
  const api = new SlackApi({
    token: s.botToken,
    apiUrl: s.apiUrl,
    log: core.log,
    tiers: s.rateLimits === 'off' ? NO_TIERS : SLACK_TIERS,
  });
  const nameOf = userNames(api);
  try {
    for (const channel of channels) {
      if (signal.aborted) break;
      const cursor = await core.store.caches.ingestCursor(channelCursor(channel));
      const where = await channelPlace(api, channel);
      if (scope?.kind === 'public' && where.isPrivate)
        throw new UserError(
          `--scope public: #${where.name} (${channel}) is private; its messages would show in every channel. Leave --scope out (only its members see it: channel:${channel}) or name channels`,
        );
      const read = await readChannel(api, where, cursor, nameOf, progressBar());
      const ownScope: Scope = { kind: 'channels', channels: [channel] };
      const report = await ingestDocuments(
        {
          store: core.store,
          encoder: core.encoder,
          // new threads are the channel's own unless --scope says otherwise; stored ones keep theirs
          config: { ...config, defaultScope: ownScope },
          log: core.log,
          progress: progressBar(),
        },
        read.documents,
        { signal, ...(scope ? { scope } : {}) },
      );
      if (report.interrupted) {
        ctx.out(`#${where.name}: interrupted; run the same command again to finish`);
        process.exitCode = 130;
        return;
      }
      if (read.newest) await core.store.caches.setIngestCursor(channelCursor(channel), read.newest);
      ctx.out(
        `#${where.name} (${channel}): ${read.documents.length} new or changed thread(s) read; ingested ${report.added} new, ${report.updated} changed, ${report.unchanged} unchanged (${report.windows} windows); scope ${formatScope(scope ?? ownScope)} for new ones`,
      );
    }
  } finally {
    await api.stop();
  }
}
