import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, secretsOf } from '../src/config.js';
import { ROOT } from './helpers.js';
import { SETTINGS } from '../src/settings.js';

describe('configuration', () => {
  it('has a default for every setting', () => {
    const c = loadConfig({});
    expect(c.maxHops).toBe(3);
    expect(c.coherenceThreshold).toBe(0);
    expect(c.rerankTopK).toBe(5);
    expect(c.hopBudgetMs).toBe(300);
    expect(c.totalBudgetMs).toBe(1200);
  });

  it('names every malformed setting on its own line with the allowed form', () => {
    let err: ConfigError | null = null;
    try {
      loadConfig({
        RAGASK_MAX_HOPS: 'lots',
        RAGASK_COHERENCE_THRESHOLD: '1.5',
        RAGASK_MODEL_VARIANT: 'fp16',
        RAGASK_THREADS: '2.5',
      });
    } catch (e) {
      err = e as ConfigError;
    }
    expect(err).toBeInstanceOf(ConfigError);
    expect(err!.lines).toHaveLength(4);
    expect(err!.lines).toContain('RAGASK_MAX_HOPS: must be an integer from 1 to 5 (got "lots")');
    expect(err!.lines.find((l) => l.startsWith('RAGASK_COHERENCE_THRESHOLD'))).toMatch(
      /a number from 0 to 1 \(got "1.5"\)/,
    );
    expect(err!.lines.find((l) => l.startsWith('RAGASK_MODEL_VARIANT'))).toMatch(/fp32 or int8/);
  });

  it('rejects an invalid value of every setting that has a form, naming it and the allowed form', () => {
    const invalid: Partial<Record<keyof typeof SETTINGS, string>> = {
      RAGASK_MODEL: 'bad name/with slash',
      RAGASK_MODEL_VARIANT: 'fp16',
      RAGASK_MLM_MODEL: '../escape',
      RAGASK_READER_MODEL: '../escape',
      RAGASK_READER_VARIANT: 'fp16',
      RAGASK_INGEST_ENCODER: 'process',
      RAGASK_READER_PASSAGES: '0',
      RAGASK_THREADS: '0',
      RAGASK_WINDOW_TOKENS: '4',
      RAGASK_WINDOW_OVERLAP: '-1',
      RAGASK_CHUNK_MAX_TOKENS: '1',
      RAGASK_MAX_FILE_MB: '0',
      RAGASK_HNSW_M: '1000',
      RAGASK_HNSW_EF_CONSTRUCTION: '5',
      RAGASK_HNSW_EF_SEARCH: 'many',
      RAGASK_MAX_HOPS: '9',
      RAGASK_COHERENCE_THRESHOLD: '-0.1',
      RAGASK_RERANK_TOP_K: '0',
      RAGASK_DENSITY_WEIGHT: '2',
      RAGASK_HOP_BUDGET_MS: '1',
      RAGASK_TOTAL_BUDGET_MS: 'soon',
      RAGASK_QUERY_CACHE_TTL_S: '-5',
      RAGASK_DEFAULT_SCOPE: 'everyone',
      RAGASK_ENGINE_CONCURRENCY: '0',
      RAGASK_ENGINE_WORKERS: '-1',
      RAGASK_QUEUE_LIMIT: '1.5',
      SLACK_BOT_TOKEN: 'xoxp-not-a-bot',
      SLACK_APP_TOKEN: 'xoxb-not-an-app-token',
      SLACK_SIGNING_SECRET: 'not-hex',
      RAGASK_SLACK_MODE: 'webhook',
      RAGASK_SLACK_PORT: '70000',
      RAGASK_SLACK_API_URL: 'not a url',
      RAGASK_SLACK_EPHEMERAL: 'maybe',
      RAGASK_SLACK_RATE_LIMITS: 'fast',
      RAGASK_REDIS_URL: 'localhost:6379',
      RAGASK_DATABASE_URL: 'mysql://db/ragask',
      RAGASK_RECOVERY_SWEEP_S: '0',
      RAGASK_STATE_TTL_H: '0',
      RAGASK_ADMINS: '@alice',
      RAGASK_SLACK_SOURCES: '#eng',
      RAGASK_LOG_LEVEL: 'loud',
      RAGASK_STOP_FOR_PERSON: 'sometimes',
      RAGASK_WRITER_URL: 'localhost:8080/v1',
      RAGASK_WRITER_MODEL: 'm'.repeat(201),
      RAGASK_WRITER_API_KEY: 'k'.repeat(501),
      RAGASK_WRITER_TIMEOUT_MS: '5',
      RAGASK_WRITER_MAX_TOKENS: 'lots',
    };
    // free-form settings: any path or host name is a valid value
    expect(
      Object.keys(SETTINGS)
        .filter((k) => !(k in invalid))
        .sort(),
    ).toEqual(['RAGASK_DATA_DIR', 'RAGASK_MODELS_DIR', 'RAGASK_SLACK_HOST', 'RAGASK_SOURCES_FILE']);
    for (const [name, value] of Object.entries(invalid)) {
      let lines: string[] = [];
      try {
        loadConfig({ [name]: value }, {}, { features: ['slack'] });
      } catch (e) {
        lines = (e as ConfigError).lines;
      }
      expect(lines, name).toHaveLength(1);
      expect(lines[0]).toMatch(new RegExp(`^${name}: must be .+ \\(got `));
      if (name.startsWith('SLACK_')) expect(lines[0]).not.toContain(value);
    }
  });

  it('lets a bad Slack setting stop only the commands that use Slack', () => {
    expect(() => loadConfig({ SLACK_BOT_TOKEN: 'xoxp-user' })).not.toThrow();
    expect(loadConfig({ SLACK_BOT_TOKEN: 'xoxp-user' }).slack.botToken).toBeNull();
    expect(() => loadConfig({ SLACK_BOT_TOKEN: 'xoxp-user' }, {}, { features: ['slack'] })).toThrow(/SLACK_BOT_TOKEN/);
  });

  it('checks settings against each other', () => {
    expect(() => loadConfig({ RAGASK_WINDOW_TOKENS: '20', RAGASK_WINDOW_OVERLAP: '20' })).toThrow(
      /RAGASK_WINDOW_OVERLAP: must be below RAGASK_WINDOW_TOKENS/,
    );
    expect(() => loadConfig({ RAGASK_HOP_BUDGET_MS: '500', RAGASK_TOTAL_BUDGET_MS: '400' })).toThrow(
      /RAGASK_TOTAL_BUDGET_MS/,
    );
  });

  it("wants the writer's model with its URL, and counts its key among the secrets", () => {
    let lines: string[] = [];
    try {
      loadConfig({ RAGASK_WRITER_URL: 'http://127.0.0.1:8080/v1', RAGASK_WRITER_API_KEY: 'sk-secret-123' });
    } catch (e) {
      lines = (e as ConfigError).lines;
    }
    expect(lines).toEqual([
      'RAGASK_WRITER_MODEL: must be set when RAGASK_WRITER_URL is (the model name the endpoint serves)',
    ]);
    const config = loadConfig({
      RAGASK_WRITER_URL: 'http://127.0.0.1:8080/v1',
      RAGASK_WRITER_MODEL: 'smollm2',
      RAGASK_WRITER_API_KEY: 'sk-secret-123',
    });
    expect(config.writer).toEqual({
      url: 'http://127.0.0.1:8080/v1',
      model: 'smollm2',
      apiKey: 'sk-secret-123',
      timeoutMs: 20000,
      maxTokens: 300,
    });
    expect(secretsOf(config)).toContain('sk-secret-123');
    expect(loadConfig({}).writer).toBeNull();
  });

  it('documents every setting in .env.example, and nothing else', () => {
    const example = fs.readFileSync(path.join(ROOT, '.env.example'), 'utf8');
    const documented = [...example.matchAll(/^([A-Z][A-Z0-9_]+)=/gm)].map((m) => m[1]);
    expect(new Set(documented)).toEqual(new Set(Object.keys(SETTINGS)));
    // each with a comment above it
    for (const name of documented)
      expect(example).toMatch(new RegExp(`#[^\\n]*\\n(?:#[^\\n]*\\n)*(?:[A-Z_]+=[^\\n]*\\n)*${name}=`));
  });

  it('accepts the values .env.example proposes', () => {
    const example = fs.readFileSync(path.join(ROOT, '.env.example'), 'utf8');
    const env = Object.fromEntries([...example.matchAll(/^([A-Z][A-Z0-9_]+)=(.*)$/gm)].map((m) => [m[1]!, m[2]!]));
    expect(() => loadConfig(env)).not.toThrow();
  });
});
