import { pino, type Logger } from 'pino';

/**
 * Structured JSON logs on stderr (stdout is for the CLI's answers). pino: fast, JSON by default,
 * and its `redact` option keeps secrets out of logs by path, whatever code logs them.
 */
export type { Logger };

const SECRET_PATHS = [
  'token',
  'botToken',
  'appToken',
  'signingSecret',
  'SLACK_BOT_TOKEN',
  'SLACK_APP_TOKEN',
  'SLACK_SIGNING_SECRET',
  '*.token',
  '*.botToken',
  '*.appToken',
  '*.signingSecret',
  '*.SLACK_BOT_TOKEN',
  '*.SLACK_APP_TOKEN',
  '*.SLACK_SIGNING_SECRET',
  'headers.authorization',
  '*.headers.authorization',
];

/** Slack token shapes (xoxb-, xoxp-, xapp-, …); scrubbed from any logged string as a second line of defence. */
const SLACK_TOKEN_PATTERN = /\bx(?:ox[abposre]|app)-[A-Za-z0-9-]{6,}/g;

function scrubSecrets(text: string, secrets: readonly string[] = []): string {
  let out = text.replace(SLACK_TOKEN_PATTERN, '[redacted]');
  for (const s of secrets) if (s && s.length >= 6) out = out.split(s).join('[redacted]');
  return out;
}

export interface LoggerOptions {
  level?: string;
  /** Where to write; defaults to stderr. Tests pass a stream to inspect the output. */
  destination?: NodeJS.WritableStream;
  /** Literal secret values to scrub from every line (tokens, signing secret). */
  secrets?: readonly string[];
}

export function createLogger(opts: LoggerOptions = {}): Logger {
  const secrets = (opts.secrets ?? []).filter((s) => s && s.length >= 6);
  const dest = opts.destination ?? process.stderr;
  const stream = {
    write(line: string) {
      dest.write(scrubSecrets(line, secrets));
    },
  };
  return pino(
    {
      level: opts.level ?? process.env.RAGASK_LOG_LEVEL ?? 'info',
      base: { app: 'ragask' },
      redact: { paths: SECRET_PATHS, censor: '[redacted]' },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    stream,
  );
}

/** A logger that discards everything (tests and library use without a logger). */
export const silentLogger: Logger = pino({ level: 'silent' });
