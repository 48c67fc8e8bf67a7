import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig, type Config, type SettingName } from '../src/config.js';

export const ROOT = path.resolve(import.meta.dirname, '..');
export const SAMPLE_DIR = path.join(ROOT, 'data', 'sample');

/** A fresh temporary folder, removed by the caller's afterAll/afterEach. */
export function tempDir(prefix = 'ragask-test-'): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

/** A config on the real models with the data in `dataDir`, plus setting overrides. */
export function testConfig(dataDir: string, overrides: Partial<Record<SettingName, unknown>> = {}): Config {
  return loadConfig({}, { RAGASK_DATA_DIR: dataDir, RAGASK_MODELS_DIR: path.join(ROOT, 'models'), RAGASK_THREADS: 1, ...overrides });
}
