import { Piscina } from 'piscina';
import type { Config } from '../config.js';
import type { EncoderOptions, Vector } from '../models/encoder.js';
import { builtWorker } from './built-worker.js';

/**
 * The sentence encoder in a worker thread, for ingest: onnxruntime-node runs a session synchronously
 * in the thread that calls it, so an ingest that encodes in its own thread cannot parse the next
 * documents, write the last batch or add its vectors to the HNSW index meanwhile. Here the worker
 * encodes one batch while the ingesting thread does the rest (src/ingest/ingest.ts pipelines them).
 * piscina (already the engine workers' pool) runs the one worker; the vectors come back as one moved
 * buffer per batch.
 */
export class WorkerEncoder {
  private constructor(
    private readonly piscina: Piscina<string[], Float32Array>,
    readonly dimension: number,
  ) {}

  /** Starts the worker and resolves once it has loaded the model (a model that will not load rejects here). */
  static async start(opts: EncoderOptions & { dimension: number }): Promise<WorkerEncoder> {
    const { dimension, ...encoder } = opts;
    const piscina = new Piscina<string[], Float32Array>({
      filename: builtWorker('encoder-worker'),
      minThreads: 1,
      maxThreads: 1,
      concurrentTasksPerWorker: 1,
      idleTimeout: Number.POSITIVE_INFINITY,
      workerData: encoder,
    });
    const pool = new WorkerEncoder(piscina, dimension);
    try {
      await pool.encode(['ready']);
    } catch (e) {
      await pool.close();
      throw e;
    }
    return pool;
  }

  /** The texts' vectors, in order. Batches queue: one runs at a time, with every thread the worker was given. */
  async encode(texts: readonly string[]): Promise<Vector[]> {
    if (texts.length === 0) return [];
    const flat = await this.piscina.run([...texts]);
    return Array.from({ length: texts.length }, (_, i) => flat.slice(i * this.dimension, (i + 1) * this.dimension));
  }

  async close(): Promise<void> {
    await this.piscina.destroy();
  }
}

/**
 * Runs `fn` with the batch encoder RAGASK_INGEST_ENCODER asks for: the encoder in a worker thread
 * (closed when `fn` settles), or none, and ingest encodes in its own thread.
 */
export async function withIngestEncoder<T>(
  config: Pick<Config, 'ingestEncoder' | 'modelsDir' | 'model' | 'modelVariant' | 'threads'>,
  dimension: number,
  fn: (batchEncoder: WorkerEncoder | undefined) => Promise<T>,
): Promise<T> {
  if (config.ingestEncoder === 'thread') return fn(undefined);
  const worker = await WorkerEncoder.start({
    modelsDir: config.modelsDir,
    model: config.model,
    variant: config.modelVariant,
    threads: config.threads,
    dimension,
  });
  try {
    return await fn(worker);
  } finally {
    await worker.close();
  }
}
