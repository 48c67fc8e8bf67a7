import path from 'node:path';
import { vi } from 'vitest';
import { main } from '../../src/cli/program.js';
import { ROOT } from '../helpers.js';

const baseEnv = { ...process.env };

/** Runs the CLI in-process with its store in `dataDir` and `env`; returns exit code, stdout and stderr. */
export async function runCli(
  dataDir: string,
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const o = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    out += String(chunk);
    return true;
  });
  const e = vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
    err += String(chunk);
    return true;
  });
  process.env = {
    ...baseEnv,
    RAGASK_MODELS_DIR: path.join(ROOT, 'models'),
    RAGASK_DATA_DIR: dataDir,
    RAGASK_THREADS: '1',
    ...env,
  };
  process.exitCode = undefined;
  try {
    const code = await main(['node', 'ragask', ...args]);
    return { code, out, err };
  } finally {
    o.mockRestore();
    e.mockRestore();
    process.env = { ...baseEnv };
    process.exitCode = undefined;
  }
}
