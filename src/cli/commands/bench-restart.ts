import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const BIN = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../bin/ragask.js');
/** GNU time: the child's wall time and peak resident memory, which Node cannot read of a child. */
const GNU_TIME = '/usr/bin/time';

export interface RestartFigures {
  /** From the process starting to the answer written: models loaded, store and index opened, one question. */
  ms: number;
  /** The process's peak RSS, models, reader and index included (null without GNU time). */
  peakRssMb: number | null;
}

/**
 * A fresh `ragask ask` on the store, as `serve` starts: it loads the models, opens the store and its
 * saved index, and answers one question (serve asks its warm-up question the same way before it
 * connects to Slack). The query cache is off, so the answer is computed.
 */
export function startToFirstAnswer(dataDir: string, question: string): RestartFigures {
  const args = [BIN, '--data-dir', dataDir, 'ask', question, '--json'];
  // the SQLite store in dataDir: a PostgreSQL URL the bench was started with (to measure both) is not this store
  const { RAGASK_DATABASE_URL: _postgres, ...inherited } = process.env;
  const env = { ...inherited, RAGASK_QUERY_CACHE_TTL_S: '0' };
  const timed = fs.existsSync(GNU_TIME);
  const t0 = performance.now();
  const r = timed
    ? spawnSync(GNU_TIME, ['-f', 'ragask-time %e %M', process.execPath, ...args], { encoding: 'utf8', env })
    : spawnSync(process.execPath, args, { encoding: 'utf8', env });
  const ms = Math.round(performance.now() - t0);
  if (r.status !== 0) throw new Error(`ragask ask on ${dataDir} failed (exit ${r.status}): ${r.stderr.slice(-400)}`);
  const m = /ragask-time ([\d.]+) (\d+)/.exec(r.stderr);
  return { ms, peakRssMb: m ? Math.round(Number(m[2]) / 1024) : null };
}
