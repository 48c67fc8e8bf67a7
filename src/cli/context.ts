import type { Config } from '../config.js';
import type { Logger } from '../log.js';
import type { SettingName } from '../settings.js';

/** What every command is handed: the settings, a logger and where its output goes (a module that imports nothing back). */
export interface CliContext {
  /** Settings from the environment with the flags that override them (and the features' own, when asked). */
  config(overrides?: Partial<Record<SettingName, unknown>>, features?: readonly 'slack'[]): Config;
  logger(config?: Config): Logger;
  out: (text: string) => void;
}
