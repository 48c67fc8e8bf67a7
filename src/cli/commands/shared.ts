import { InvalidArgumentError, type Command } from 'commander';
import type { Config } from '../../config.js';
import { openCore, type Core } from '../../core.js';
import type { CliContext } from '../context.js';
import { progressBar } from '../progress.js';
import type { SettingName } from '../../settings.js';

/** Settings overridden by global flags (--data-dir) and by the command's own flags. */
export function configFrom(
  ctx: CliContext,
  cmd: Command,
  overrides: Partial<Record<SettingName, unknown>> = {},
  features: readonly 'slack'[] = [],
): Config {
  const globals = cmd.optsWithGlobals() as { dataDir?: string };
  return ctx.config({ ...(globals.dataDir ? { RAGASK_DATA_DIR: globals.dataDir } : {}), ...overrides }, features);
}

export async function withCore<T>(ctx: CliContext, config: Config, fn: (core: Core) => Promise<T>): Promise<T> {
  const core = await openCore(config, ctx.logger(config), { indexProgress: progressBar() });
  try {
    return await fn(core);
  } finally {
    await core.close();
  }
}

export function parsePositiveInt(name: string, max = 1000) {
  return (value: string): number => {
    const n = Number(value);
    if (!Number.isInteger(n) || n < 1 || n > max)
      throw new InvalidArgumentError(`${name} must be an integer from 1 to ${max} (got ${JSON.stringify(value)})`);
    return n;
  };
}
