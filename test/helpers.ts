import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig, type Config } from '../src/config.js';
import type { ChunkInput } from '../src/store/types.js';
import type { SettingName } from '../src/settings.js';

export const ROOT = path.resolve(import.meta.dirname, '..');
export const SAMPLE_DIR = path.join(ROOT, 'data', 'sample');

/** A fresh temporary folder, removed by the caller's afterAll/afterEach. */
export function tempDir(prefix = 'ragask-test-'): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

/** A config on the real models with the data in `dataDir`, plus setting overrides. */
/**
 * The settings of an in-process test. Wall-clock budgets are generous: behaviour must not depend on
 * how fast this CPU (or an emulated one, under qemu) is; the budget tests set their own budgets on
 * a fake clock.
 */
export function testConfig(dataDir: string, overrides: Partial<Record<SettingName, unknown>> = {}): Config {
  return loadConfig(
    {},
    {
      RAGASK_DATA_DIR: dataDir,
      RAGASK_MODELS_DIR: path.join(ROOT, 'models'),
      RAGASK_THREADS: 1,
      RAGASK_HOP_BUDGET_MS: 60_000,
      RAGASK_TOTAL_BUDGET_MS: 600_000,
      ...overrides,
    },
  );
}

import { openCore, type Core } from '../src/core.js';
import { Decomposer } from '../src/engine/decompose.js';
import { HopEngine } from '../src/engine/hops.js';
import { ingest } from '../src/ingest/ingest.js';

/** An engine over `core`'s store and models, with some of its parts replaced (a reader, a clock, a cache). */
export function engineOf(
  core: Core,
  extra: Partial<ConstructorParameters<typeof HopEngine>[0]>,
  settings = core.engine.settings,
): HopEngine {
  const decomposer = new Decomposer({
    store: core.store,
    windowsOfDoc: async (id) => await core.retriever.windowsOfDoc(id),
    windowsOfChunks: async (ids) => await core.retriever.windowVectors(ids),
  });
  return new HopEngine(
    {
      retriever: core.retriever,
      decomposer,
      encoder: core.encoder,
      reader: core.reader,
      access: core.access,
      ...extra,
    },
    settings,
  );
}

/** A core on a fresh store holding the sample corpus (real model, real SQLite and HNSW). */
export async function sampleCore(
  overrides: Partial<Record<SettingName, unknown>> = {},
): Promise<{ core: Core; dir: string; cleanup: () => Promise<void> }> {
  const dir = tempDir();
  const config = testConfig(dir, { RAGASK_QUERY_CACHE_TTL_S: 0, ...overrides });
  const core = await openCore(config);
  await ingest({ store: core.store, encoder: core.encoder, config }, [SAMPLE_DIR]);
  return {
    core,
    dir,
    cleanup: async () => {
      await core.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A store in `dataDir` holding the sample corpus, closed again (for processes that open it themselves). */
export async function ingestSample(
  dataDir: string,
  overrides: Partial<Record<SettingName, unknown>> = {},
): Promise<void> {
  const config = testConfig(dataDir, overrides);
  const core = await openCore(config);
  try {
    await ingest({ store: core.store, encoder: core.encoder, config }, [SAMPLE_DIR]);
  } finally {
    await core.close();
  }
}

/** The sample document a source path belongs to, relative to data/sample ("projects/falcon.md"). */
export function sampleRel(source: string): string {
  return path.relative(SAMPLE_DIR, source.split('#')[0]!).split(path.sep).join('/');
}

/** A paragraph chunk as ingest would hand it to a store, one window per vector. */
export function chunkInput(ord: number, text: string, vectors: Float32Array[], headingPath: string[] = []): ChunkInput {
  return {
    ord,
    kind: 'paragraph',
    headingPath,
    page: null,
    text,
    tokenCount: text.split(' ').length,
    density: 0,
    entities: [],
    entry: null,
    windows: vectors.map((v, i) => ({ ord: i, charStart: 0, charEnd: text.length, tokenCount: 4, vector: v })),
  };
}
