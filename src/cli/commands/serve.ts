import type { Command } from 'commander';
import { checkSlackConfig, secretsOf } from '../../config.js';
import { openCore } from '../../core.js';
import { createLogger } from '../../log.js';
import { createSlackApp } from '../../slack/app.js';
import type { CliContext } from '../program.js';
import { configFrom } from './shared.js';

export function register(program: Command, ctx: CliContext): void {
  program
    .command('serve')
    .description('run the Slack bot (Socket Mode by default, or HTTP with RAGASK_SLACK_MODE=http) on the configured stores')
    .action(async (_opts: unknown, cmd: Command) => {
      const config = configFrom(ctx, cmd, {}, ['slack']);
      checkSlackConfig(config);
      const log = createLogger({ level: config.logLevel, secrets: secretsOf(config) });
      const core = await openCore(config, log);
      if (core.store.counts().documents === 0) log.warn('the store is empty: ingest documents with `npx ragask ingest <paths>` (or `npm run demo` for the sample corpus)');
      const slack = createSlackApp(core, config, log);
      const { port } = await slack.start();
      process.stderr.write(`ragask: serving Slack (${config.slack.mode === 'http' ? `HTTP on ${config.slack.host}:${port}` : 'Socket Mode'}); store ${config.dataDir}; Ctrl-C to stop\n`);
      await new Promise<void>((resolve) => {
        const stop = () => resolve();
        process.once('SIGINT', stop);
        process.once('SIGTERM', stop);
      });
      process.stderr.write('ragask: stopping…\n');
      await slack.stop();
      await core.close();
    });
}
