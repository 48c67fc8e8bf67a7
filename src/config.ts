import path from 'node:path';
import type { z } from 'zod';
import { UserError } from './errors.js';
import { parseScope, type Scope } from './store/access.js';
import { type Settings, type SettingName, SETTINGS, type Setting, SECRET_SETTINGS } from './settings.js';
import type { WriterSettings } from './engine/writer/types.js';

export interface Config {
  dataDir: string;
  /** The PostgreSQL backend (RAGASK_DATABASE_URL), or null for the embedded SQLite store in dataDir. */
  databaseUrl: string | null;
  /** A schema of its own in that database (eval datasets, benchmarks, tests); null: the URL's search_path. Not a setting. */
  databaseSchema: string | null;
  modelsDir: string;
  model: string;
  modelVariant: 'fp32' | 'int8';
  mlmModel: string | null;
  readerModel: string;
  readerVariant: 'fp32' | 'int8';
  readerPassages: number;
  threads: number;
  /** Where ingest runs the encoder (RAGASK_INGEST_ENCODER): a worker thread of its own, or the ingesting thread. */
  ingestEncoder: 'worker' | 'thread';
  windowTokens: number;
  windowOverlap: number;
  chunkMaxTokens: number;
  maxFileBytes: number;
  /** The sources file `sync` reads and `serve` keeps current (RAGASK_SOURCES_FILE), or null. */
  sourcesFile: string | null;
  hnsw: { m: number; efConstruction: number; efSearch: number };
  maxHops: number;
  coherenceThreshold: number;
  stopForPerson: 'when-useful' | 'always';
  rerankTopK: number;
  densityWeight: number;
  hopBudgetMs: number;
  totalBudgetMs: number;
  queryCacheTtlS: number;
  defaultScope: Scope;
  engineConcurrency: number;
  engineWorkers: number;
  queueLimit: number;
  logLevel: string;
  slack: SlackConfig;
  /** The optional answer writer (RAGASK_WRITER_URL), or null. */
  writer: WriterSettings | null;
  settings: Settings;
}

export interface SlackConfig {
  botToken: string | null;
  appToken: string | null;
  signingSecret: string | null;
  mode: 'socket' | 'http';
  port: number;
  host: string;
  apiUrl: string;
  ephemeral: boolean;
  rateLimits: 'slack' | 'off';
  /** Shared rate limits across replicas (RAGASK_REDIS_URL), or null. */
  redisUrl: string | null;
  /** How often the recovery sweep runs (RAGASK_RECOVERY_SWEEP_S). */
  recoverySweepMs: number;
  stateTtlMs: number;
  /** Slack user ids of the admins (RAGASK_ADMINS). */
  admins: string[];
  /** Channels whose threads serve keeps as sources (RAGASK_SLACK_SOURCES). */
  sources: string[];
}

/** A bad configuration: one line per failing setting. */
export class ConfigError extends UserError {
  constructor(readonly lines: string[]) {
    super(lines.join('; '), 'config');
  }
}

function describe(raw: unknown): string {
  const s = String(raw);
  return s.length > 40 ? `${JSON.stringify(s.slice(0, 40))}…` : JSON.stringify(s);
}

/** "U1, U2" → ["U1", "U2"]: a list setting of Slack ids. */
function idList(text: string): string[] {
  return text
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean);
}

/**
 * The settings of `env` with `overrides` on top, each parsed by its schema: every failing one is
 * reported, each on its own line, before anything starts.
 */
function readSettings(
  env: NodeJS.ProcessEnv,
  overrides: Partial<Record<SettingName, unknown>>,
  features: readonly 'slack'[],
): Settings {
  const values: Record<string, unknown> = {};
  const lines: string[] = [];
  for (const [name, def] of Object.entries(SETTINGS) as [SettingName, Setting<z.ZodType>][]) {
    // settings of a feature not in use (Slack, for `ask` or `ingest`) never stop other commands:
    // a bad value there is reported by the commands that use it (`serve`, `doctor`)
    const checked = !def.feature || features.includes(def.feature);
    const fromOverride = overrides[name];
    const raw = fromOverride !== undefined ? fromOverride : env[name];
    const input =
      raw === undefined || (typeof raw === 'string' && raw.trim() === '' && name !== 'RAGASK_MLM_MODEL')
        ? undefined
        : typeof raw === 'string'
          ? raw.trim()
          : raw;
    const parsed = def.schema.safeParse(input);
    if (parsed.success) values[name] = parsed.data;
    else if (!checked) values[name] = def.schema.safeParse(undefined).data;
    // a secret is never echoed, not even when it is malformed
    else
      lines.push(
        `${name}: must be ${def.form} (got ${SECRET_SETTINGS.has(name) ? `a value of ${String(raw).length} characters` : describe(raw)})`,
      );
  }
  if (lines.length === 0) lines.push(...crossChecks(values as Settings));
  if (lines.length) throw new ConfigError(lines);
  return values as Settings;
}

/** Settings that are each well formed but wrong together. */
function crossChecks(s: Settings): string[] {
  const lines: string[] = [];
  if (s.RAGASK_WINDOW_OVERLAP >= s.RAGASK_WINDOW_TOKENS)
    lines.push(
      `RAGASK_WINDOW_OVERLAP: must be below RAGASK_WINDOW_TOKENS (${s.RAGASK_WINDOW_TOKENS}) (got ${s.RAGASK_WINDOW_OVERLAP})`,
    );
  if (s.RAGASK_TOTAL_BUDGET_MS < s.RAGASK_HOP_BUDGET_MS)
    lines.push(
      `RAGASK_TOTAL_BUDGET_MS: must be at least RAGASK_HOP_BUDGET_MS (${s.RAGASK_HOP_BUDGET_MS}) (got ${s.RAGASK_TOTAL_BUDGET_MS})`,
    );
  if (s.RAGASK_WRITER_URL && !s.RAGASK_WRITER_MODEL)
    lines.push('RAGASK_WRITER_MODEL: must be set when RAGASK_WRITER_URL is (the model name the endpoint serves)');
  return lines;
}

/**
 * Reads settings from `env` (process.env after dotenv) with `overrides` (CLI flags) on top.
 * Every failing setting is reported, each on its own line, before anything starts.
 */
export function loadConfig(
  env: NodeJS.ProcessEnv = process.env,
  overrides: Partial<Record<SettingName, unknown>> = {},
  opts: { features?: readonly 'slack'[] } = {},
): Config {
  return configOf(readSettings(env, overrides, opts.features ?? []));
}

/** The config the settings make. */
function configOf(s: Settings): Config {
  return {
    dataDir: path.resolve(s.RAGASK_DATA_DIR),
    databaseUrl: s.RAGASK_DATABASE_URL ?? null,
    databaseSchema: null,
    modelsDir: path.resolve(s.RAGASK_MODELS_DIR),
    model: s.RAGASK_MODEL,
    modelVariant: s.RAGASK_MODEL_VARIANT,
    mlmModel: s.RAGASK_MLM_MODEL ? s.RAGASK_MLM_MODEL : null,
    readerModel: s.RAGASK_READER_MODEL,
    readerVariant: s.RAGASK_READER_VARIANT,
    readerPassages: s.RAGASK_READER_PASSAGES,
    threads: s.RAGASK_THREADS,
    ingestEncoder: s.RAGASK_INGEST_ENCODER,
    windowTokens: s.RAGASK_WINDOW_TOKENS,
    windowOverlap: s.RAGASK_WINDOW_OVERLAP,
    chunkMaxTokens: s.RAGASK_CHUNK_MAX_TOKENS,
    maxFileBytes: Math.round(s.RAGASK_MAX_FILE_MB * 1024 * 1024),
    sourcesFile: s.RAGASK_SOURCES_FILE ? path.resolve(s.RAGASK_SOURCES_FILE) : null,
    hnsw: { m: s.RAGASK_HNSW_M, efConstruction: s.RAGASK_HNSW_EF_CONSTRUCTION, efSearch: s.RAGASK_HNSW_EF_SEARCH },
    maxHops: s.RAGASK_MAX_HOPS,
    coherenceThreshold: s.RAGASK_COHERENCE_THRESHOLD,
    stopForPerson: s.RAGASK_STOP_FOR_PERSON,
    rerankTopK: s.RAGASK_RERANK_TOP_K,
    densityWeight: s.RAGASK_DENSITY_WEIGHT,
    hopBudgetMs: s.RAGASK_HOP_BUDGET_MS,
    totalBudgetMs: s.RAGASK_TOTAL_BUDGET_MS,
    queryCacheTtlS: s.RAGASK_QUERY_CACHE_TTL_S,
    defaultScope: parseScope(s.RAGASK_DEFAULT_SCOPE, 'RAGASK_DEFAULT_SCOPE'),
    engineConcurrency: s.RAGASK_ENGINE_CONCURRENCY,
    engineWorkers: s.RAGASK_ENGINE_WORKERS,
    queueLimit: s.RAGASK_QUEUE_LIMIT,
    logLevel: s.RAGASK_LOG_LEVEL,
    slack: {
      botToken: s.SLACK_BOT_TOKEN ?? null,
      appToken: s.SLACK_APP_TOKEN ?? null,
      signingSecret: s.SLACK_SIGNING_SECRET ?? null,
      mode: s.RAGASK_SLACK_MODE,
      port: s.RAGASK_SLACK_PORT,
      host: s.RAGASK_SLACK_HOST,
      apiUrl: s.RAGASK_SLACK_API_URL.endsWith('/') ? s.RAGASK_SLACK_API_URL : `${s.RAGASK_SLACK_API_URL}/`,
      ephemeral: s.RAGASK_SLACK_EPHEMERAL,
      rateLimits: s.RAGASK_SLACK_RATE_LIMITS,
      redisUrl: s.RAGASK_REDIS_URL ?? null,
      recoverySweepMs: s.RAGASK_RECOVERY_SWEEP_S * 1000,
      stateTtlMs: Math.round(s.RAGASK_STATE_TTL_H * 3600_000),
      admins: idList(s.RAGASK_ADMINS),
      sources: idList(s.RAGASK_SLACK_SOURCES),
    },
    writer: s.RAGASK_WRITER_URL
      ? {
          url: s.RAGASK_WRITER_URL,
          model: s.RAGASK_WRITER_MODEL!,
          apiKey: s.RAGASK_WRITER_API_KEY ?? null,
          timeoutMs: s.RAGASK_WRITER_TIMEOUT_MS,
          maxTokens: s.RAGASK_WRITER_MAX_TOKENS,
        }
      : null,
    settings: s,
  };
}

const CREATE_APP_HINT =
  'create the Slack app from manifest.yml (https://api.slack.com/apps → Create New App → From an app manifest), install it to your workspace, and put the value in .env';

/**
 * The Slack settings `ragask serve` needs for its mode, each missing one on its own line saying where
 * to find it. Their form is checked by loadConfig already.
 */
export function checkSlackConfig(config: Config): void {
  const lines: string[] = [];
  const need = (name: SettingName, present: boolean, where: string) => {
    if (!present) lines.push(`${name}: missing; ${where}; ${CREATE_APP_HINT}`);
  };
  need(
    'SLACK_BOT_TOKEN',
    !!config.slack.botToken,
    "the Bot User OAuth Token (xoxb-…) from the app's OAuth & Permissions page",
  );
  if (config.slack.mode === 'socket')
    need(
      'SLACK_APP_TOKEN',
      !!config.slack.appToken,
      'an app-level token (xapp-…) with connections:write from Basic Information → App-Level Tokens (or set RAGASK_SLACK_MODE=http)',
    );
  else
    need(
      'SLACK_SIGNING_SECRET',
      !!config.slack.signingSecret,
      'the Signing Secret from Basic Information → App Credentials',
    );
  if (lines.length) throw new ConfigError(lines);
}

/** Secret values of a config, to scrub from logs. */
export function secretsOf(config: Config): string[] {
  return [
    config.slack.botToken,
    config.slack.appToken,
    config.slack.signingSecret,
    config.slack.redisUrl,
    config.writer?.apiKey,
  ].filter((x): x is string => !!x);
}
