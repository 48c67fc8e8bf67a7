import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startToFirstAnswer } from '../../src/cli/commands/bench-restart.js';
import { ROOT, tempDir } from '../helpers.js';
import { runCli } from './run-cli.js';

/**
 * `bench --scale`'s fresh start: a new `ragask ask` on the SQLite store it measures, also when the bench
 * runs with RAGASK_DATABASE_URL set (to measure PostgreSQL beside it), which once sent the child to PostgreSQL.
 */
let dir: string;
const saved = process.env.RAGASK_DATABASE_URL;
beforeAll(async () => {
  dir = tempDir('ragask-restart-');
  const r = await runCli(dir, ['ingest', path.join(ROOT, 'data', 'sample')]);
  expect(r.code, r.err).toBe(0);
});
afterAll(() => {
  if (saved === undefined) delete process.env.RAGASK_DATABASE_URL;
  else process.env.RAGASK_DATABASE_URL = saved;
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('startToFirstAnswer', () => {
  it('answers from the SQLite store it is given while the bench holds a PostgreSQL URL', { timeout: 120_000 }, () => {
    process.env.RAGASK_DATABASE_URL = 'postgresql://nobody@127.0.0.1:1/nothing';
    const r = startToFirstAnswer(dir, 'What is the default sampling interval of the sensor?');
    expect(r.ms).toBeGreaterThan(0);
  });
});
