import os from 'node:os';
import { z } from 'zod';
import { ENGINE_DEFAULTS } from './engine/defaults.js';
import { parseScope } from './store/access.js';

/**
 * Every setting ragask reads, with its allowed form and a one-line description. `.env.example` is
 * checked against this table by a test, so a setting cannot be added without being documented.
 * zod: declarative validation whose issues name the failing value, so each bad setting gets one line.
 */
export interface Setting<T extends z.ZodType> {
  schema: T;
  /** The allowed form, as shown in error messages. */
  form: string;
  doc: string;
  /** Only validated when this feature is in use (e.g. the Slack tokens for `ragask serve`). */
  feature?: 'slack';
}

const int = (min: number, max: number) => z.coerce.number().refine((n) => Number.isInteger(n) && n >= min && n <= max);

const num = (min: number, max: number) => z.coerce.number().refine((n) => Number.isFinite(n) && n >= min && n <= max);

function setting<T extends z.ZodType>(schema: T, form: string, doc: string, feature?: 'slack'): Setting<T> {
  return feature ? { schema, form, doc, feature } : { schema, form, doc };
}

export const SETTINGS = {
  RAGASK_DATA_DIR: setting(
    z.string().min(1).default('data'),
    'a folder path',
    'Folder holding the SQLite store (ragask.db) and the HNSW index.',
  ),
  RAGASK_DATABASE_URL: setting(
    z
      .string()
      .regex(/^postgres(ql)?:\/\/[^\s]*$/)
      .optional(),
    'a postgres:// or postgresql:// URL',
    'Store everything in this PostgreSQL database (pgvector 0.5 or newer) instead of RAGASK_DATA_DIR: documents, vectors (an HNSW index in pgvector), full-text search and the Slack state, shared by every replica. Empty: the embedded SQLite store.',
  ),
  RAGASK_MODELS_DIR: setting(
    z.string().min(1).default('models'),
    'a folder path',
    'Folder holding the ONNX models (filled by `npm run models`).',
  ),
  RAGASK_MODEL: setting(
    z
      .string()
      .regex(/^[\w.@-]+$/)
      .default('all-MiniLM-L6-v2'),
    'a model folder name under RAGASK_MODELS_DIR',
    'Sentence-embedding BERT used for windows and queries.',
  ),
  RAGASK_MODEL_VARIANT: setting(
    z.enum(['fp32', 'int8']).default('int8'),
    'fp32 or int8',
    'Which ONNX export of the model to run (see BENCHMARKS.md for speed and recall of each).',
  ),
  RAGASK_MLM_MODEL: setting(
    z
      .string()
      .regex(/^[\w.@-]*$/)
      .default(''),
    'empty, or a model folder name under RAGASK_MODELS_DIR',
    'Optional BertForMaskedLM for fill-mask scoring of bridge entities; empty turns it off.',
  ),
  RAGASK_READER_MODEL: setting(
    z
      .string()
      .regex(/^[\w.@-]+$/)
      .default('reader-minilm'),
    'a model folder name under RAGASK_MODELS_DIR',
    'Extractive reader that reads the short answer off the evidence (ships with ragask; `npm run train-reader` rebuilds it).',
  ),
  RAGASK_READER_VARIANT: setting(
    z.enum(['fp32', 'int8']).default('int8'),
    'fp32 or int8',
    'Which ONNX export of the reader to run (only int8 ships; fp32 exists after `npm run train-reader`).',
  ),
  RAGASK_READER_PASSAGES: setting(
    int(1, 20).default(ENGINE_DEFAULTS.readerPassages),
    'an integer from 1 to 20',
    'Passages of the final evidence the reader reads for the answer.',
  ),
  RAGASK_THREADS: setting(
    int(1, 256).default(Math.max(1, Math.min(4, os.availableParallelism()))),
    'an integer from 1 to 256',
    'onnxruntime intra-op threads for the encoder.',
  ),
  RAGASK_INGEST_ENCODER: setting(
    z.enum(['worker', 'thread']).default('worker'),
    'worker or thread',
    'Where `ragask ingest` and the ingest benches run the encoder: a worker thread of its own, so the next batch is encoded while the last is written and indexed, or the ingesting thread (`ragask sync` keeps to its thread: under `serve` it yields to the answers).',
  ),
  RAGASK_WINDOW_TOKENS: setting(
    int(8, 256).default(50),
    'an integer from 8 to 256',
    'Size of a rerank window in word-piece tokens.',
  ),
  RAGASK_WINDOW_OVERLAP: setting(
    int(0, 200).default(10),
    'an integer from 0 to 200, below RAGASK_WINDOW_TOKENS',
    'Tokens shared by consecutive windows of a chunk.',
  ),
  RAGASK_CHUNK_MAX_TOKENS: setting(
    int(16, 2000).default(200),
    'an integer from 16 to 2000',
    'Longest chunk; a longer paragraph is split at sentence boundaries.',
  ),
  RAGASK_MAX_FILE_MB: setting(
    num(0.001, 10_000).default(50),
    'a number of megabytes from 0.001 to 10000',
    'Files larger than this are refused at ingest.',
  ),
  RAGASK_SOURCES_FILE: setting(
    z.string().default(''),
    'a path to a YAML sources file, or empty',
    'The sources `ragask sync` reads and `serve` keeps current on each source\'s schedule (README, "Keeping sources current"). Empty: none.',
  ),
  RAGASK_HNSW_M: setting(int(4, 128).default(16), 'an integer from 4 to 128', 'HNSW graph degree (M).'),
  RAGASK_HNSW_EF_CONSTRUCTION: setting(
    int(10, 2000).default(200),
    'an integer from 10 to 2000',
    'HNSW efConstruction (build-time candidate list).',
  ),
  RAGASK_HNSW_EF_SEARCH: setting(
    int(10, 2000).default(128),
    'an integer from 10 to 2000',
    'HNSW efSearch (query-time candidate list).',
  ),
  RAGASK_MAX_HOPS: setting(
    int(1, 5).default(ENGINE_DEFAULTS.maxHops),
    'an integer from 1 to 5',
    'Most retrieval hops per question.',
  ),
  RAGASK_COHERENCE_THRESHOLD: setting(
    num(0, 1).default(ENGINE_DEFAULTS.coherenceThreshold),
    'a number from 0 to 1',
    'Below this cosine between consecutive hop queries a hop stops whatever the hop gate says (0: the gate alone decides).',
  ),
  RAGASK_STOP_FOR_PERSON: setting(
    z.enum(['when-useful', 'always']).default(ENGINE_DEFAULTS.stopForPerson),
    'when-useful or always',
    'When a likely wrong next hop stops the chain, ask a person only when no short answer stands and a suggestion is likely to help (when-useful), or at every such stop (always).',
  ),
  RAGASK_RERANK_TOP_K: setting(
    int(1, 50).default(ENGINE_DEFAULTS.rerankTopK),
    'an integer from 1 to 50',
    'Snippets kept per hop after window reranking.',
  ),
  RAGASK_DENSITY_WEIGHT: setting(
    num(0, 1).default(0),
    'a number from 0 to 1',
    "Weight of a chunk's evidence density (entities, numbers, dates per word) in retrieval; 0 turns it off.",
  ),
  RAGASK_HOP_BUDGET_MS: setting(
    int(10, 60_000).default(ENGINE_DEFAULTS.hopBudgetMs),
    'an integer number of milliseconds from 10 to 60000',
    'Time budget of one hop; past it the hop returns its best-so-far marked incomplete.',
  ),
  RAGASK_TOTAL_BUDGET_MS: setting(
    int(10, 600_000).default(ENGINE_DEFAULTS.totalBudgetMs),
    'an integer number of milliseconds from 10 to 600000',
    'Time budget of a whole question.',
  ),
  RAGASK_QUERY_CACHE_TTL_S: setting(
    int(0, 30 * 86400).default(3600),
    'an integer number of seconds from 0 (off) to 2592000',
    'How long a (query, hop) retrieval result is reused.',
  ),
  RAGASK_DEFAULT_SCOPE: setting(
    z
      .string()
      .default('public')
      .refine((v) => {
        try {
          parseScope(v);
          return true;
        } catch {
          return false;
        }
      }),
    'public, channel:<id>[,<id>…] or user:<id>',
    'Who may see a newly ingested source when `ragask ingest` is not given --scope.',
  ),
  RAGASK_ENGINE_CONCURRENCY: setting(
    int(1, 64).default(2),
    'an integer from 1 to 64',
    'Questions the engine answers at the same time in one thread (RAGASK_ENGINE_WORKERS=0, and the CLI); more wait in the queue.',
  ),
  RAGASK_ENGINE_WORKERS: setting(
    int(0, 64).default(Math.min(4, os.availableParallelism())),
    'an integer from 0 to 64',
    '`ragask serve`: worker threads that answer questions (each with its own models and store handles, sharing RAGASK_THREADS), so acknowledging and talking to Slack never wait behind the engine; 0 answers in the main thread with RAGASK_ENGINE_CONCURRENCY. Default: one per CPU core, at most 4.',
  ),
  RAGASK_QUEUE_LIMIT: setting(
    int(1, 100_000).default(32),
    'an integer from 1 to 100000',
    'Questions waiting or running beyond which askers are told ragask is busy (their questions are still answered).',
  ),
  SLACK_BOT_TOKEN: setting(
    z
      .string()
      .regex(/^xoxb-[A-Za-z0-9-]+$/)
      .optional(),
    'a bot token starting with xoxb-',
    'Bot User OAuth Token of the Slack app (OAuth & Permissions page).',
    'slack',
  ),
  SLACK_APP_TOKEN: setting(
    z
      .string()
      .regex(/^xapp-[A-Za-z0-9-]+$/)
      .optional(),
    'an app-level token starting with xapp-',
    'App-level token with connections:write (Basic Information page); needed for Socket Mode.',
    'slack',
  ),
  SLACK_SIGNING_SECRET: setting(
    z
      .string()
      .regex(/^[0-9a-f]{32}$/)
      .optional(),
    '32 hexadecimal characters',
    'Signing secret of the Slack app (Basic Information page); needed for HTTP mode.',
    'slack',
  ),
  RAGASK_SLACK_MODE: setting(
    z.enum(['socket', 'http']).default('socket'),
    'socket or http',
    'Socket Mode (no public URL; default) or HTTP Events API (behind a load balancer).',
    'slack',
  ),
  RAGASK_SLACK_PORT: setting(
    int(0, 65535).default(3000),
    'a port number from 0 to 65535',
    'Port of the HTTP receiver (HTTP mode).',
    'slack',
  ),
  RAGASK_SLACK_HOST: setting(
    z.string().min(1).default('0.0.0.0'),
    'a host name or IP address to listen on',
    'Address the HTTP receiver listens on (HTTP mode).',
    'slack',
  ),
  RAGASK_SLACK_API_URL: setting(
    z
      .string()
      .regex(/^https?:\/\/[^\s/]+(\/[^\s]*)?\/api\/?$/)
      .default('https://slack.com/api/'),
    'an http(s) URL ending in /api/',
    'Slack Web API base URL (change only for a proxy or a test stand-in).',
    'slack',
  ),
  RAGASK_SLACK_EPHEMERAL: setting(
    z
      .enum(['true', 'false'])
      .default('false')
      .transform((v) => v === 'true'),
    'true or false',
    '/ragask answers only the asker (ephemeral) unless the command says otherwise.',
    'slack',
  ),
  RAGASK_SLACK_RATE_LIMITS: setting(
    z.enum(['slack', 'off']).default('slack'),
    'slack or off',
    "Pace Web API calls to Slack's method tiers (slack), or not at all (off: only for a local stand-in, e.g. the load benchmark).",
    'slack',
  ),
  RAGASK_RECOVERY_SWEEP_S: setting(
    int(1, 3600).default(60),
    'an integer from 1 to 3600',
    "How often `ragask serve` looks for questions whose answering process died (its own or another replica's) and answers them; one left unclaimed is taken after half this long.",
    'slack',
  ),
  RAGASK_WRITER_URL: setting(
    z
      .string()
      .regex(/^https?:\/\/[^\s]+$/)
      .optional(),
    'an http:// or https:// URL',
    'The optional answer writer: the base URL of an OpenAI-compatible chat endpoint (llama.cpp server, Ollama, vLLM, a hosted API), e.g. http://127.0.0.1:8080/v1. Every sentence it writes is checked against the evidence it cites before anyone sees it. Empty: no writer, the reply is extractive.',
  ),
  RAGASK_WRITER_MODEL: setting(
    z.string().min(1).max(200).optional(),
    'a model name the endpoint serves',
    "The writer's model (required with RAGASK_WRITER_URL).",
  ),
  RAGASK_WRITER_API_KEY: setting(
    z.string().min(1).max(500).optional(),
    'an API key',
    'Sent to the writer endpoint as a bearer token; never logged. Empty: none (local servers).',
  ),
  RAGASK_WRITER_TIMEOUT_MS: setting(
    int(1000, 600_000).default(20_000),
    'an integer from 1000 to 600000',
    "The writer's whole time budget per answer (a 429 is waited out within it); past it the reply stays extractive.",
  ),
  RAGASK_WRITER_MAX_TOKENS: setting(
    int(16, 4096).default(300),
    'an integer from 16 to 4096',
    'The most tokens the writer may write per answer.',
  ),
  RAGASK_REDIS_URL: setting(
    z
      .string()
      .regex(/^rediss?:\/\/[^\s]+$/)
      .optional(),
    'a redis:// or rediss:// URL',
    'Several `ragask serve` replicas: a Redis they share keeps the Slack rate limits global (bottleneck clustering) instead of per process. Empty: each process paces its own calls.',
    'slack',
  ),
  RAGASK_STATE_TTL_H: setting(
    num(0.01, 24 * 90).default(24),
    'a number of hours from 0.01 to 2160',
    'How long suggested-hop buttons and thread context stay usable.',
    'slack',
  ),
  RAGASK_SLACK_SOURCES: setting(
    z
      .string()
      .regex(/^\s*([CG][A-Z0-9]{2,}\s*(,\s*[CG][A-Z0-9]{2,}\s*)*)?$/)
      .default(''),
    'Slack channel ids separated by commas (C0123ABCD,C0456EFGH)',
    'Channels ingested with `ingest --slack` whose threads `serve` keeps up to date: new messages, edits and deletions update their documents within seconds. Empty: none.',
    'slack',
  ),
  RAGASK_ADMINS: setting(
    z
      .string()
      .regex(/^\s*(U[A-Z0-9]{2,}\s*(,\s*U[A-Z0-9]{2,}\s*)*)?$/)
      .default(''),
    'Slack user ids separated by commas (U0123ABCD,U0456EFGH)',
    "Who sees the store and the latest unhelpful answers in ragask's Home tab, with buttons to hide or demote a source.",
    'slack',
  ),
  RAGASK_LOG_LEVEL: setting(
    z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    'one of fatal, error, warn, info, debug, trace, silent',
    'Log level of the JSON logs on stderr.',
  ),
} as const;

export type SettingName = keyof typeof SETTINGS;

// a Redis or PostgreSQL URL may carry a password
export const SECRET_SETTINGS = new Set<string>([
  'SLACK_BOT_TOKEN',
  'SLACK_APP_TOKEN',
  'SLACK_SIGNING_SECRET',
  'RAGASK_REDIS_URL',
  'RAGASK_DATABASE_URL',
  'RAGASK_WRITER_API_KEY',
]);

type SettingValue<K extends SettingName> = z.output<(typeof SETTINGS)[K]['schema']>;

export type Settings = { [K in SettingName]: SettingValue<K> };
