/**
 * An engine worker thread (see worker-pool.ts), run by piscina: its own models (onnxruntime
 * sessions), its own store handles and HNSW index. The module opens them when the worker starts;
 * each task waits for that and answers as the engine in the serving thread would.
 */
import { BroadcastChannel, parentPort, threadId, workerData } from 'node:worker_threads';
import type { Config } from '../config.js';
import { openCore, type Core } from '../core.js';
import { UserError } from '../errors.js';
import { createLogger } from '../log.js';
import {
  CRASH_CHANNEL,
  type EngineAnswer,
  type EngineRequest,
  type SerializedError,
  type WorkerLoad,
} from './worker-protocol.js';

const { config, secrets } = workerData as { config: Config; secrets: string[] };

const serialize = (e: unknown): SerializedError => {
  const err = e instanceof Error ? e : new Error(String(e));
  return {
    name: err.name,
    message: err.message,
    stack: err.stack ?? null,
    code: err instanceof UserError ? err.code : null,
  };
};

// Opened before piscina hands the worker a task (it waits for the module): the index file belongs
// to the serving process, which opened the store first. A store or model that cannot be opened is
// every task's answer, so the pool's start reports the error the core threw.
const opened: Core | Error = await openCore(config, createLogger({ level: config.logLevel, secrets }), {
  persistIndex: false,
}).catch((e: unknown) => (e instanceof Error ? e : new Error(String(e))));

/** Tasks this worker is answering now (see CRASH_CHANNEL). */
let answering = 0;
const crash = new BroadcastChannel(CRASH_CHANNEL);
crash.onmessage = (m: { data: unknown }) => {
  if (m.data === threadId && answering > 0) process.exit(1);
};
// the channel must not keep an idle worker alive
crash.unref();

async function answer(core: Core, req: EngineRequest): Promise<unknown> {
  switch (req.method) {
    case 'run':
      return core.engine.run(...req.args);
    case 'resume':
      return core.engine.resume(...req.args);
    case 'followUp':
      return core.engine.followUp(...req.args);
    case 'ready':
      return true;
  }
}

/** piscina's task handler: the answer, or the error the engine threw, serialized. */
export default async function handle(req: EngineRequest): Promise<EngineAnswer> {
  if (opened instanceof Error) return { error: serialize(opened) };
  answering++;
  parentPort?.postMessage({ answering, threadId } satisfies WorkerLoad);
  try {
    return { value: await answer(opened, req) };
  } catch (e) {
    return { error: serialize(e) };
  } finally {
    answering--;
    parentPort?.postMessage({ answering, threadId } satisfies WorkerLoad);
  }
}

/** Closes this worker's models and store (piscina's close terminates the thread after). */
export async function close(): Promise<boolean> {
  if (!(opened instanceof Error)) await opened.close();
  return true;
}
