// from web-api, which re-exports @slack/logger's: Bolt itself (about a second to load) only comes with `serve`
import { LogLevel, type Logger as BoltLogger } from '@slack/web-api';
import type { Logger } from '../log.js';

const LEVELS: Record<string, LogLevel> = {
  debug: LogLevel.DEBUG,
  info: LogLevel.INFO,
  warn: LogLevel.WARN,
  error: LogLevel.ERROR,
};

/** Bolt's logger interface over our pino logger, so Bolt's own lines are JSON and scrubbed too. */
export function boltLogger(log: Logger): BoltLogger {
  const child = log.child({ component: 'bolt' });
  let level: LogLevel = LEVELS[log.level] ?? LogLevel.INFO;
  const text = (msg: unknown[]) =>
    msg.map((m) => (typeof m === 'string' ? m : m instanceof Error ? m.message : JSON.stringify(m))).join(' ');
  return {
    debug: (...msg) => child.debug(text(msg)),
    info: (...msg) => child.info(text(msg)),
    warn: (...msg) => child.warn(text(msg)),
    error: (...msg) => child.error(text(msg)),
    setLevel: (l) => {
      level = l;
    },
    getLevel: () => level,
    setName: () => undefined,
  };
}
