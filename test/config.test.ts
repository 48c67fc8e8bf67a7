import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, SETTINGS, loadConfig } from '../src/config.js';
import { ROOT } from './helpers.js';

describe('configuration', () => {
  it('has a default for every setting', () => {
    const c = loadConfig({});
    expect(c.maxHops).toBe(3);
    expect(c.coherenceThreshold).toBe(0.75);
    expect(c.rerankTopK).toBe(5);
    expect(c.hopBudgetMs).toBe(300);
    expect(c.totalBudgetMs).toBe(1200);
  });

  it('names every malformed setting on its own line with the allowed form', () => {
    let err: ConfigError | null = null;
    try {
      loadConfig({ RAGASK_MAX_HOPS: 'lots', RAGASK_COHERENCE_THRESHOLD: '1.5', RAGASK_MODEL_VARIANT: 'fp16', RAGASK_THREADS: '2.5' });
    } catch (e) {
      err = e as ConfigError;
    }
    expect(err).toBeInstanceOf(ConfigError);
    expect(err!.lines).toHaveLength(4);
    expect(err!.lines).toContain('RAGASK_MAX_HOPS: must be an integer from 1 to 5 (got "lots")');
    expect(err!.lines.find((l) => l.startsWith('RAGASK_COHERENCE_THRESHOLD'))).toMatch(/a number from 0 to 1 \(got "1.5"\)/);
    expect(err!.lines.find((l) => l.startsWith('RAGASK_MODEL_VARIANT'))).toMatch(/fp32 or int8/);
  });

  it('checks settings against each other', () => {
    expect(() => loadConfig({ RAGASK_WINDOW_TOKENS: '20', RAGASK_WINDOW_OVERLAP: '20' })).toThrow(/RAGASK_WINDOW_OVERLAP: must be below RAGASK_WINDOW_TOKENS/);
    expect(() => loadConfig({ RAGASK_HOP_BUDGET_MS: '500', RAGASK_TOTAL_BUDGET_MS: '400' })).toThrow(/RAGASK_TOTAL_BUDGET_MS/);
  });

  it('documents every setting in .env.example, and nothing else', () => {
    const example = fs.readFileSync(path.join(ROOT, '.env.example'), 'utf8');
    const documented = [...example.matchAll(/^([A-Z][A-Z0-9_]+)=/gm)].map((m) => m[1]);
    expect(new Set(documented)).toEqual(new Set(Object.keys(SETTINGS)));
    // each with a comment above it
    for (const name of documented) expect(example).toMatch(new RegExp(`#[^\\n]*\\n(?:#[^\\n]*\\n)*(?:[A-Z_]+=[^\\n]*\\n)*${name}=`));
  });

  it('accepts the values .env.example proposes', () => {
    const example = fs.readFileSync(path.join(ROOT, '.env.example'), 'utf8');
    const env = Object.fromEntries([...example.matchAll(/^([A-Z][A-Z0-9_]+)=(.*)$/gm)].map((m) => [m[1]!, m[2]!]));
    expect(() => loadConfig(env)).not.toThrow();
  });
});
