import Bottleneck from 'bottleneck';

export interface EngineQueueOptions {
  /** Questions answered at the same time (each uses the encoder's threads). */
  concurrency: number;
  /** Questions waiting or running beyond which new ones are told "busy" (and still answered). */
  limit: number;
}

/**
 * The bounded queue all engine work goes through (bottleneck: a maintained job scheduler with
 * concurrency limits and counts). Past the limit a question is not dropped: its asker is told that
 * ragask is busy, and the question waits its turn in the queue like any other.
 */
export class EngineQueue {
  private readonly limiter: Bottleneck;

  constructor(private readonly opts: EngineQueueOptions) {
    this.limiter = new Bottleneck({ maxConcurrent: opts.concurrency });
  }

  /** Questions queued or running. */
  get load(): number {
    const c = this.limiter.counts();
    return c.RECEIVED + c.QUEUED + c.RUNNING + c.EXECUTING;
  }

  run<T>(job: () => Promise<T>, onBusy?: () => unknown): Promise<T> {
    if (this.load >= this.opts.limit && onBusy) {
      // telling the asker must never cost them their answer
      Promise.resolve()
        .then(onBusy)
        .catch(() => undefined);
    }
    return this.limiter.schedule(job);
  }

  async stop(): Promise<void> {
    await this.limiter.stop({ dropWaitingJobs: false });
  }
}
