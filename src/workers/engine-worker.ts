/**
 * An engine worker thread (see worker-pool.ts): its own models (onnxruntime sessions), its own
 * store handles and HNSW index, answering one request at a time for the thread that serves Slack.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { Config } from '../config.js';
import { openCore, type Core } from '../core.js';
import { UserError } from '../errors.js';
import { createLogger } from '../log.js';
import type { EngineRequest, EngineWorkerMessage, SerializedError } from './worker-protocol.js';

const port = parentPort;
if (!port) throw new Error('engine-worker.js runs only as a worker thread (see EnginePool)');
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
const send = (m: EngineWorkerMessage) => port.postMessage(m);

async function answer(core: Core, req: EngineRequest): Promise<unknown> {
  switch (req.method) {
    case 'run':
      return core.engine.run(...req.args);
    case 'resume':
      return core.engine.resume(...req.args);
    case 'followUp':
      return core.engine.followUp(...req.args);
  }
}

let core: Core;
try {
  // the index file belongs to the serving process, which opened the store first
  core = await openCore(config, createLogger({ level: config.logLevel, secrets }), { persistIndex: false });
} catch (e) {
  send({ type: 'failed', error: serialize(e) });
  // ends this thread only
  process.exit(1);
}
port.on('message', (req: EngineRequest | { method: 'stop' } | { method: 'exit' }) => {
  if (req.method === 'stop') {
    void core.close().finally(() => port.close());
    return;
  }
  // ends this worker at once, between two steps of whatever it answers: what a crash does to the
  // pool (the tests of its recovery send it; terminating a thread inside onnxruntime is not safe)
  if (req.method === 'exit') process.exit(1);
  answer(core, req).then(
    (value) => send({ type: 'result', id: req.id, value }),
    (e: unknown) => send({ type: 'result', id: req.id, error: serialize(e) }),
  );
});
send({ type: 'ready' });
