import Bottleneck from 'bottleneck';

export interface EngineQueueOptions {
  /** Questions answered at the same time (each uses the encoder's threads). */
  concurrency: number;
  /** Questions waiting or running beyond which new ones are told "busy" (and still answered). */
  limit: number;
  /** How often a waiting question checks for room again. */
  retryMs?: number;
}

/**
 * The bounded queue all engine work goes through (bottleneck: a maintained job scheduler with
 * concurrency limits and counts). Past the limit a question is not dropped: its asker is told once
 * that ragask is busy, and the question waits for room, then runs.
 */
export class EngineQueue {
  private readonly limiter: Bottleneck;
  private waiting = 0;

  constructor(private readonly opts: EngineQueueOptions) {
    this.limiter = new Bottleneck({ maxConcurrent: opts.concurrency });
  }

  /** Questions queued or running in the limiter. */
  private get active(): number {
    const c = this.limiter.counts();
    return c.RECEIVED + c.QUEUED + c.RUNNING + c.EXECUTING;
  }

  /** Questions queued, running, or waiting for room. */
  get load(): number {
    return this.active + this.waiting;
  }

  async run<T>(job: () => Promise<T>, onBusy?: () => void | Promise<void>): Promise<T> {
    if (this.load >= this.opts.limit) {
      this.waiting++;
      try {
        await onBusy?.();
        while (this.active >= this.opts.limit) await new Promise((r) => setTimeout(r, this.opts.retryMs ?? 250));
      } finally {
        this.waiting--;
      }
    }
    return this.limiter.schedule(job);
  }

  async stop(): Promise<void> {
    await this.limiter.stop({ dropWaitingJobs: false });
  }
}
