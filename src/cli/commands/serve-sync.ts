import { spawn, type ChildProcess } from 'node:child_process';
import os from 'node:os';
import type { Config } from '../../config.js';
import type { Logger } from '../../log.js';

/** How often serve looks for sources whose time has come. */
const TICK_MS = 60_000;
/** The sync pass's scheduling priority: the lowest, so answers get the cores first. */
const LOW_PRIORITY = 19;

/**
 * The sources file's sources kept current while serving: once a minute, a `ragask sync --due` of its
 * own (one at a time), at the lowest CPU priority. In a process of its own, the pass's parsing and
 * encoding never hold this event loop (Slack wants its acknowledgement within 3 s), and answers get
 * the cores first. It writes through the store as any ingest does: each document is replaced in one
 * transaction, so an answer reads its old or its new version, never half, and the index catches up.
 */
export function keepSourcesCurrent(config: Config, log: Logger): () => Promise<void> {
  if (!config.sourcesFile) return () => Promise.resolve();
  let child: ChildProcess | null = null;
  let stopped = false;
  const run = () => {
    if (child || stopped) return;
    const pass = spawn(process.execPath, [process.argv[1]!, 'sync', '--due', '--file', config.sourcesFile!], {
      env: process.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child = pass;
    try {
      if (pass.pid) os.setPriority(pass.pid, LOW_PRIORITY);
    } catch {
      // not permitted here: the pass runs at normal priority
    }
    let out = '';
    pass.stdout?.on('data', (d) => {
      out += String(d);
    });
    pass.stderr?.on('data', (d) => {
      out += String(d);
    });
    pass.on('exit', (code) => {
      child = null;
      const lines = out
        .trim()
        .split('\n')
        .filter((l) => l && !l.includes('\r'));
      if (code === 0) log.info({ lines }, 'sync: pass done');
      else log.warn({ code, lines }, 'sync: a source failed or the pass stopped (see `ragask sync --status`)');
    });
  };
  const timer = setInterval(run, TICK_MS);
  timer.unref();
  run();
  log.info({ file: config.sourcesFile }, 'sync: keeping sources current');
  return async () => {
    stopped = true;
    clearInterval(timer);
    const pass = child;
    if (!pass) return;
    // the pass stops between batches; what is written stays consistent and the next pass resumes
    await new Promise<void>((resolve) => {
      pass.once('exit', () => resolve());
      pass.kill('SIGINT');
    });
  };
}
