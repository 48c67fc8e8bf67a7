import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { Config } from '../config.js';
import { UserError } from '../errors.js';
import type { Logger } from '../log.js';
import type { AccessContext } from '../store/access.js';
import type { EngineResult } from '../engine/types.js';
import type { EngineRequest, EngineWorkerMessage, SerializedError } from './worker-protocol.js';
import type { EngineSettings } from '../engine/settings.js';
import type { EngineApi } from '../engine/api.js';

/** How long a stopping worker may take to close its models and store before it is terminated. */
const CLOSE_MS = 5000;

/** The built worker beside this file; from the TypeScript sources (tests), the one in dist/. */
function workerFile(): string {
  const here = fileURLToPath(import.meta.url);
  const file = here.endsWith('.js')
    ? path.join(path.dirname(here), 'engine-worker.js')
    : path.resolve(path.dirname(here), '..', '..', 'dist', 'workers', 'engine-worker.js');
  if (!fs.existsSync(file))
    throw new UserError(
      `${file} is missing: run \`npm run build\` (the engine workers run the built code)`,
      'not_built',
    );
  return file;
}

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

interface Slot {
  worker: Worker;
  pending: Map<number, { resolve: (v: EngineResult) => void; reject: (e: Error) => void }>;
}

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
 * synchronously in the thread that calls them). Each worker has its own models and store handles;
 * a request goes to the worker with the fewest in flight. A worker that dies fails only the
 * requests it held (the Slack flows report and recover those) and is replaced.
 */
export class EnginePool implements EngineApi {
  private readonly slots: Slot[] = [];
  private readonly file = workerFile();
  private nextId = 1;
  private closing = false;
  /** Replacements being started: a request that finds no worker waits for one. */
  private replacing: Promise<void> = Promise.resolve();

  private constructor(private readonly opts: EnginePoolOptions) {}

  /** Starts `size` workers and resolves once every one has loaded its models and opened the store. */
  static async start(opts: EnginePoolOptions): Promise<EnginePool> {
    const pool = new EnginePool(opts);
    const started = await Promise.allSettled(Array.from({ length: opts.size }, () => pool.spawn()));
    for (const s of started) if (s.status === 'fulfilled') pool.slots.push(s.value);
    const failed = started.find((s): s is PromiseRejectedResult => s.status === 'rejected');
    if (failed) {
      await pool.close();
      throw failed.reason;
    }
    return pool;
  }

  get size(): number {
    return this.slots.length;
  }

  private spawn(): Promise<Slot> {
    const { config, size } = this.opts;
    const threads = Math.max(1, Math.floor(config.threads / size));
    const worker = new Worker(this.file, {
      workerData: { config: { ...config, threads }, secrets: this.opts.secrets ?? [] },
    });
    const slot: Slot = { worker, pending: new Map() };
    return new Promise<Slot>((resolve, reject) => {
      let ready = false;
      worker.on('message', (m: EngineWorkerMessage) => {
        if (m.type === 'ready') {
          ready = true;
          resolve(slot);
        } else if (m.type === 'failed') reject(revive(m.error));
        else {
          const p = slot.pending.get(m.id);
          if (!p) return;
          slot.pending.delete(m.id);
          if ('error' in m) p.reject(revive(m.error));
          else p.resolve(m.value as EngineResult);
        }
      });
      worker.on('error', (e) => {
        this.opts.log.error({ err: e }, 'engine worker failed');
        if (!ready) reject(e);
      });
      worker.on('exit', (code) => {
        if (!ready) return reject(new Error(`an engine worker exited (code ${code}) while starting`));
        for (const p of slot.pending.values()) p.reject(new WorkerStopped(code));
        slot.pending.clear();
        const i = this.slots.indexOf(slot);
        if (i >= 0) this.slots.splice(i, 1);
        if (this.closing || i < 0) return;
        this.opts.log.error({ code }, 'an engine worker stopped; starting another');
        this.replacing = this.replacing.then(() =>
          this.spawn().then(
            (s) => {
              if (this.closing) void s.worker.terminate();
              else this.slots.push(s);
            },
            (e: unknown) => this.opts.log.error({ err: e }, 'could not start a replacement engine worker'),
          ),
        );
      });
    });
  }

  /**
   * Sends a request to the worker with the fewest in flight. When that worker dies while holding
   * it, the request is sent once more (to another worker, or its replacement): a question is not
   * lost to one crash; one that ends two workers is failed, not passed on.
   */
  private async call(req: Omit<EngineRequest, 'id'>): Promise<EngineResult> {
    try {
      return await this.send(req);
    } catch (e) {
      if (!(e instanceof WorkerStopped) || this.closing) throw e;
      this.opts.log.warn(
        { method: req.method, code: e.code },
        'an engine worker stopped while answering; asking another',
      );
      return this.send(req);
    }
  }

  private async send(req: Omit<EngineRequest, 'id'>): Promise<EngineResult> {
    if (this.slots.length === 0 && !this.closing) await this.replacing;
    if (this.slots.length === 0)
      throw new Error(this.closing ? 'the engine is stopping' : 'no engine worker is running');
    let slot = this.slots[0]!;
    for (const s of this.slots) if (s.pending.size < slot.pending.size) slot = s;
    const id = this.nextId++;
    return new Promise<EngineResult>((resolve, reject) => {
      slot.pending.set(id, { resolve, reject });
      slot.worker.postMessage({ ...req, id });
    });
  }

  /** How many requests each worker holds right now (the pool sends each to the least loaded). */
  get load(): number[] {
    return this.slots.map((s) => s.pending.size);
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

  /** Asks every worker to close its models and store; one that does not within CLOSE_MS is terminated. */
  async close(): Promise<void> {
    this.closing = true;
    await Promise.all(
      this.slots.splice(0).map(
        (s) =>
          new Promise<void>((resolve) => {
            const timer = setTimeout(() => void s.worker.terminate(), CLOSE_MS);
            s.worker.once('exit', () => {
              clearTimeout(timer);
              resolve();
            });
            s.worker.postMessage({ method: 'stop' });
          }),
      ),
    );
  }
}
