import { Piscina } from 'piscina';
import type { Config } from '../config.js';
import type { EngineApi } from '../engine/api.js';
import type { EngineSettings } from '../engine/settings.js';
import type { EngineResult } from '../engine/types.js';
import { UserError } from '../errors.js';
import { builtWorker } from './built-worker.js';
import type { Logger } from '../log.js';
import type { AccessContext } from '../store/access.js';
import type { EngineAnswer, EngineRequest, SerializedError, WorkerLoad } from './worker-protocol.js';

/** How long a stopping worker may take to close its models and store before it is terminated. */
const CLOSE_MS = 5000;

function revive(e: SerializedError): Error {
  const err =
    e.name === 'UserError'
      ? new UserError(e.message, e.code ?? undefined)
      : e.name === 'RangeError'
        ? new RangeError(e.message)
        : new Error(e.message);
  if (e.stack) err.stack = e.stack;
  return err;
}

/** The worker holding a request stopped (crashed, killed, out of memory) before it answered. */
export class WorkerStopped extends Error {
  constructor(readonly code: number) {
    super(`the engine worker answering this stopped (exit code ${code})`);
  }
}

/** piscina's error for a task whose worker exited under it. */
const WORKER_EXITED = /^worker exited with code: (-?\d+)/;

export interface EnginePoolOptions {
  config: Config;
  /** Worker threads; each gets config.threads / size onnxruntime threads (at least one). */
  size: number;
  log: Logger;
  /** Secrets the workers' logs scrub. */
  secrets?: string[];
}

/**
 * The engine in worker threads, so the thread that serves Slack only acknowledges, records and
 * talks to Slack while questions are answered (onnxruntime, better-sqlite3 and wink-nlp all run
 * synchronously in the thread that calls them). piscina (a well-kept worker pool: a queue, the
 * least busy worker, dead workers replaced) runs them, one question per worker at a time, each
 * worker with its own models and store handles. A worker that dies fails only the question it held,
 * and that question is asked once more; the Slack flows report and recover the rest.
 */
export class EnginePool implements EngineApi {
  private closing = false;
  /** Questions each worker is answering now, by thread id (what the workers report). */
  private readonly answering = new Map<number, number>();

  private constructor(
    private readonly piscina: Piscina<EngineRequest, EngineAnswer>,
    private readonly opts: EnginePoolOptions,
  ) {
    piscina.on('message', (m: WorkerLoad) => this.answering.set(m.threadId, m.answering));
    piscina.on('error', (e: unknown) => opts.log.error({ err: e }, 'an engine worker failed'));
  }

  /** Starts `size` workers and resolves once every one has loaded its models and opened the store. */
  static async start(opts: EnginePoolOptions): Promise<EnginePool> {
    const { config, size } = opts;
    const threads = Math.max(1, Math.floor(config.threads / size));
    const piscina = new Piscina<EngineRequest, EngineAnswer>({
      filename: builtWorker('engine-worker'),
      minThreads: size,
      maxThreads: size,
      // one question per worker: its engine is busy until it answers; the rest wait in the queue
      concurrentTasksPerWorker: 1,
      idleTimeout: Number.POSITIVE_INFINITY,
      closeTimeout: CLOSE_MS,
      workerData: { config: { ...config, threads }, secrets: opts.secrets ?? [] },
    });
    const pool = new EnginePool(piscina, opts);
    // one readiness question per worker, all at once: each idle worker takes one
    const ready = await Promise.allSettled(Array.from({ length: size }, () => pool.ask({ method: 'ready', args: [] })));
    const failed = ready.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed) {
      await pool.close();
      throw failed.reason;
    }
    return pool;
  }

  get size(): number {
    return this.piscina.threads.length;
  }

  /** Questions each worker is answering now (one at most), by thread id, and how many wait for a worker. */
  get load(): { answering: { threadId: number; questions: number }[]; queued: number } {
    // a worker that died is gone from piscina's threads (its own report may say it was answering)
    const live = new Set(this.piscina.threads.map((t) => t.threadId));
    const answering = [...this.answering]
      .filter(([threadId]) => live.has(threadId))
      .map(([threadId, questions]) => ({ threadId, questions }));
    return { answering, queued: this.piscina.queueSize };
  }

  /** One request to whichever worker is free, its answer or the error the engine threw. */
  private async ask(req: EngineRequest): Promise<unknown> {
    if (this.closing) throw new Error('the engine is stopping');
    let answer: EngineAnswer;
    try {
      answer = await this.piscina.run(req);
    } catch (e) {
      const exited = WORKER_EXITED.exec((e as Error).message ?? '');
      throw exited ? new WorkerStopped(Number(exited[1])) : e;
    }
    if ('error' in answer) throw revive(answer.error);
    return answer.value;
  }

  /**
   * A question whose worker dies while answering it is asked once more (of another worker, or its
   * replacement): a question is not lost to one crash; one that ends two workers is failed, not
   * passed on.
   */
  private async call(req: EngineRequest): Promise<EngineResult> {
    try {
      return (await this.ask(req)) as EngineResult;
    } catch (e) {
      if (!(e instanceof WorkerStopped) || this.closing) throw e;
      this.opts.log.warn(
        { method: req.method, code: e.code },
        'an engine worker stopped while answering; asking another',
      );
      return (await this.ask(req)) as EngineResult;
    }
  }

  run(question: string, access: AccessContext, overrides?: Partial<EngineSettings>): Promise<EngineResult> {
    return this.call({ method: 'run', args: [question, access, overrides] });
  }

  resume(
    previous: EngineResult,
    choice: number | string,
    access: AccessContext,
    overrides?: Partial<EngineSettings>,
  ): Promise<EngineResult> {
    return this.call({ method: 'resume', args: [previous, choice, access, overrides] });
  }

  followUp(
    previous: EngineResult,
    question: string,
    access: AccessContext,
    overrides?: Partial<EngineSettings>,
  ): Promise<EngineResult> {
    return this.call({ method: 'followUp', args: [previous, question, access, overrides] });
  }

  /**
   * Each worker closes its models and store (one close task per worker, all at once: each idle
   * worker takes one), then piscina stops the threads (terminating any that take over CLOSE_MS).
   */
  async close(): Promise<void> {
    if (this.closing) return;
    this.closing = true;
    const workers = this.piscina.threads.length;
    await Promise.allSettled(
      Array.from({ length: workers }, () => this.piscina.run({ method: 'ready', args: [] }, { name: 'close' })),
    );
    await this.piscina.close();
  }
}
