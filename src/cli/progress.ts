import cliProgress from 'cli-progress';
import type { ProgressReporter } from '../progress.js';

/**
 * A progress bar with an ETA on stderr (cli-progress: maintained, handles ETA and non-TTY output).
 * Without a TTY (CI, pipes) it prints nothing: the final report says what happened.
 */
export function progressBar(enabled = process.stderr.isTTY === true): ProgressReporter {
  if (!enabled) return { start() {}, update() {}, stop() {} };
  const bar = new cliProgress.SingleBar(
    {
      stream: process.stderr,
      format: '{label} [{bar}] {percentage}% | {value}/{total} | ETA {eta_formatted} | {duration_formatted}',
      hideCursor: true,
      etaBuffer: 50,
      fps: 5,
    },
    cliProgress.Presets.shades_classic,
  );
  let started = false;
  return {
    start(total, label) {
      bar.start(total, 0, { label });
      started = true;
    },
    update(done, label) {
      if (started) bar.update(done, label ? { label } : {});
    },
    stop() {
      if (started) bar.stop();
      started = false;
    },
  };
}
