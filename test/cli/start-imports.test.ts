import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT } from '../helpers.js';

// A loader hook that writes every module the process loads (ESM and CommonJS) to stderr.
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ragask-imports-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
fs.writeFileSync(
  path.join(dir, 'hooks.mjs'),
  "export async function load(url, context, next) { process.stderr.write('loaded ' + url + '\\n'); return next(url, context); }\n",
);
fs.writeFileSync(
  path.join(dir, 'register.mjs'),
  [
    "import Module, { register } from 'node:module';",
    `register(${JSON.stringify(new URL(`file://${path.join(dir, 'hooks.mjs')}`).href)});`,
    'const load = Module._load;',
    "Module._load = function (request, parent, isMain) { const m = load.apply(this, arguments); try { process.stderr.write('loaded ' + Module._resolveFilename(request, parent) + '\\n'); } catch {} return m; };",
  ].join('\n'),
);

/** The packages a run of the CLI loaded. */
function packagesLoaded(args: string[]): Set<string> {
  const r = spawnSync(
    process.execPath,
    ['--import', path.join(dir, 'register.mjs'), path.join(ROOT, 'bin', 'ragask.js'), ...args],
    {
      encoding: 'utf8',
      env: { ...process.env, RAGASK_DATA_DIR: dir },
    },
  );
  expect(r.status).toBe(0);
  return new Set([...r.stderr.matchAll(/node_modules\/((?:@[^/]+\/)?[^/]+)\//g)].map((m) => m[1]!));
}

describe('what the CLI loads when it starts', () => {
  it('leaves the packages only some runs need until they are used', () => {
    const loaded = packagesLoaded(['--help']);
    // the libraries every command needs are there, so the hook saw the start
    expect(['commander', 'better-sqlite3'].filter((p) => loaded.has(p))).toEqual(['commander', 'better-sqlite3']);
    expect(['openai', 'ioredis', 'jszip', 'mammoth', 'yaml', 'protobufjs'].filter((p) => loaded.has(p))).toEqual([]);
  });
});
