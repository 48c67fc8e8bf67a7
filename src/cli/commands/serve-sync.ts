import { spawn, type ChildProcess } from 'node:child_process';
import os from 'node:os';
import type { Config } from '../../config.js';
import type { Logger } from '../../log.js';

/** How often serve looks for work in the background. */
const TICK_MS = 60_000;
/** How often the gap report admins see on their Home tab is made again. */
const GAPS_EVERY_MS = 3_600_000;
/** The background passes' scheduling priority: the lowest, so answers get the cores first. */
const LOW_PRIORITY = 19;

/**
 * serve's background work, each pass a `ragask` process of its own at the lowest CPU priority, one
 * at a time: once a minute `ragask sync --due` (the sources file's sources whose time has come), and
 * once an hour `ragask gaps --all --save` (the gap report admins see on their Home tab). In a process
 * of its own, a pass's parsing and encoding never hold this event loop (Slack wants its
 * acknowledgement within 3 s), and answers get the cores first. A sync writes through the store as
 * any ingest does: each document is replaced in one transaction, so an answer reads its old or its
 * new version, never half, and the index catches up.
 */
export function backgroundPasses(config: Config, log: Logger): () => Promise<void> {
  let child: ChildProcess | null = null;
  let stopped = false;
  let gapsAt = 0;
  const queue: string[][] = [];
  const next = () => {
    const args = queue.shift();
    if (!args || child || stopped) return;
    const pass = spawn(process.execPath, [process.argv[1]!, ...args], {
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
        .split('\n')
        .filter((l) => l.trim() && !l.includes('\r'))
        .slice(-20);
      if (code === 0) log.info({ pass: args[0], lines }, `${args[0]}: background pass done`);
      else log.warn({ pass: args[0], code, lines }, `${args[0]}: the background pass failed or stopped`);
      next();
    });
  };
  const tick = () => {
    if (child || stopped || queue.length) return;
    if (config.sourcesFile) queue.push(['sync', '--due', '--file', config.sourcesFile]);
    if (config.slack.admins.length && Date.now() - gapsAt >= GAPS_EVERY_MS) {
      gapsAt = Date.now();
      queue.push(['gaps', '--all', '--save', '--json']);
    }
    next();
  };
  const timer = setInterval(tick, TICK_MS);
  timer.unref();
  tick();
  return async () => {
    stopped = true;
    clearInterval(timer);
    const pass = child;
    if (!pass) return;
    // a sync stops between batches; what is written stays consistent and the next pass resumes
    await new Promise<void>((resolve) => {
      pass.once('exit', () => resolve());
      pass.kill('SIGINT');
    });
  };
}
