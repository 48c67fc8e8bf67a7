/**
 * The sentence encoder in a worker thread, run by piscina (see encoder-pool.ts): its own onnxruntime
 * session and tokenizer, loaded when the worker starts. Each task is a batch of texts; the answer is
 * their vectors in one buffer, moved (not copied) back to the ingesting thread.
 */
import { workerData } from 'node:worker_threads';
import { Piscina } from 'piscina';
import { Encoder, type EncoderOptions } from '../models/encoder.js';

const encoder: Encoder | Error = await Encoder.load(workerData as EncoderOptions).catch((e: unknown) =>
  e instanceof Error ? e : new Error(String(e)),
);

/** piscina's task handler: the texts' vectors, one after another, dimension by dimension. */
export default async function encode(texts: string[]): Promise<Float32Array> {
  if (encoder instanceof Error) throw encoder;
  const vectors = await encoder.encode(texts);
  const flat = new Float32Array(vectors.length * encoder.dimension);
  for (const [i, v] of vectors.entries()) flat.set(v, i * encoder.dimension);
  return Piscina.move(flat) as unknown as Float32Array;
}
