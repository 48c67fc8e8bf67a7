import * as ort from 'onnxruntime-node';
import { UserError } from '../errors.js';
import { cpuSession, resolveModel } from './registry.js';
import { BertTokenizer } from './tokenizer.js';

/** "all-MiniLM-L6-v2/int8": a model and its variant, as a store records them. */
const encoderId = (name: string, variant: string) => `${name}/${variant}`;

export interface EncoderOptions {
  modelsDir: string;
  model: string;
  variant: 'fp32' | 'int8';
  /** onnxruntime intra-op threads. */
  threads: number;
  /** Longest input in word pieces (defaults to the model's own limit). */
  maxLength?: number;
  /** Most texts per onnxruntime call. */
  batchSize?: number;
}

export type Vector = Float32Array;

/** Dot product of two L2-normalised vectors: their cosine. */
export function dot(a: Float32Array, b: Float32Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
}

export function normalize(v: Float32Array): Float32Array {
  let n = 0;
  for (let i = 0; i < v.length; i++) n += v[i]! * v[i]!;
  n = Math.sqrt(n) || 1;
  for (let i = 0; i < v.length; i++) v[i]! /= n;
  return v;
}

export interface EncodeStats {
  texts: number;
  truncated: number;
}

/**
 * Sentence embeddings from a BERT (or MPNet) encoder on onnxruntime: texts are sorted by length and batched
 * so padding stays small, pooled the way the model was trained (mean or CLS), and L2-normalised.
 * Calls are serialised: one onnxruntime run at a time already uses every configured thread.
 */
export class Encoder {
  readonly name: string;
  readonly variant: string;
  readonly dimension: number;
  readonly pooling: 'mean' | 'cls';
  readonly maxLength: number;
  readonly stats: EncodeStats = { texts: 0, truncated: 0 };
  private readonly batchSize: number;
  private queue: Promise<unknown> = Promise.resolve();

  private constructor(
    private readonly session: ort.InferenceSession,
    readonly tokenizer: BertTokenizer,
    opts: { name: string; variant: string; dimension: number; pooling: 'mean' | 'cls'; maxLength: number; batchSize: number },
  ) {
    this.name = opts.name;
    this.variant = opts.variant;
    this.dimension = opts.dimension;
    this.pooling = opts.pooling;
    this.maxLength = opts.maxLength;
    this.batchSize = opts.batchSize;
  }

  /** What load() would give as `id` and `dimension`, from the manifest alone: a store can open meanwhile. */
  static identify(opts: Pick<EncoderOptions, 'modelsDir' | 'model' | 'variant'>): { id: string; dimension: number } {
    const { manifest } = resolveModel(opts.modelsDir, opts.model, opts.variant);
    return { id: encoderId(manifest.name, opts.variant), dimension: manifest.dimension ?? 384 };
  }

  static async load(opts: EncoderOptions): Promise<Encoder> {
    const { dir, file, manifest } = resolveModel(opts.modelsDir, opts.model, opts.variant);
    if (manifest.kind !== 'sentence-embedding') throw new UserError(`model ${opts.model} is a ${manifest.kind} model, not a sentence embedder; set RAGASK_MODEL to an embedding model`);
    const tokenizer = BertTokenizer.load(dir);
    const session = await cpuSession(file, opts.threads, 'run `npm run models -- --force`');
    const modelMax = manifest.maxLength ?? 512;
    return new Encoder(session, tokenizer, {
      name: manifest.name,
      variant: opts.variant,
      dimension: manifest.dimension ?? 384,
      pooling: manifest.pooling ?? 'mean',
      maxLength: Math.min(opts.maxLength ?? modelMax, modelMax),
      batchSize: opts.batchSize ?? 32,
    });
  }

  /** "all-MiniLM-L6-v2/int8": what a store records so a model change forces a re-index. */
  get id(): string {
    return encoderId(this.name, this.variant);
  }

  async encodeOne(text: string): Promise<Vector> {
    const [v] = await this.encode([text]);
    return v!;
  }

  /** Embeds `texts` in order; `onBatch` reports progress (texts done so far). */
  encode(texts: readonly string[], onBatch?: (done: number) => void): Promise<Vector[]> {
    const run = this.queue.then(() => this.encodeNow(texts, onBatch));
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async encodeNow(texts: readonly string[], onBatch?: (done: number) => void): Promise<Vector[]> {
    const encoded = texts.map((t) => this.tokenizer.encode(t, this.maxLength));
    this.stats.texts += texts.length;
    this.stats.truncated += encoded.filter((e) => e.truncated).length;
    const order = encoded.map((_, i) => i).sort((a, b) => encoded[a]!.ids.length - encoded[b]!.ids.length);
    const out = new Array<Vector>(texts.length);
    let done = 0;
    for (let start = 0; start < order.length; ) {
      // A batch ends at batchSize texts, or earlier when padding would more than double the work.
      let end = start + 1;
      const first = encoded[order[start]!]!.ids.length;
      while (end < order.length && end - start < this.batchSize && encoded[order[end]!]!.ids.length <= Math.max(16, first * 2)) end++;
      const idx = order.slice(start, end);
      const vectors = await this.runBatch(idx.map((i) => encoded[i]!.ids));
      for (const [j, i] of idx.entries()) out[i] = vectors[j]!;
      done += idx.length;
      onBatch?.(done);
      start = end;
    }
    return out;
  }

  private async runBatch(batch: number[][]): Promise<Vector[]> {
    const b = batch.length;
    const s = Math.max(...batch.map((x) => x.length));
    const ids = new BigInt64Array(b * s);
    const mask = new BigInt64Array(b * s);
    batch.forEach((seq, i) => {
      for (let j = 0; j < s; j++) {
        const v = j < seq.length ? seq[j]! : this.tokenizer.padId;
        ids[i * s + j] = BigInt(v);
        mask[i * s + j] = j < seq.length ? 1n : 0n;
      }
    });
    const feeds: Record<string, ort.Tensor> = {
      input_ids: new ort.Tensor('int64', ids, [b, s]),
      attention_mask: new ort.Tensor('int64', mask, [b, s]),
    };
    // a BERT's graph takes token types (all 0 for one text); an MPNet's has none
    if (this.session.inputNames.includes('token_type_ids'))
      feeds.token_type_ids = new ort.Tensor('int64', new BigInt64Array(b * s), [b, s]);
    const result = await this.session.run(feeds);
    const hidden = result[this.session.outputNames[0]!]!;
    // a model whose output is not [batch, sequence, dimension] would give garbage vectors silently
    if (hidden.dims.length !== 3 || hidden.dims[0] !== b || hidden.dims[1] !== s || hidden.dims[2] !== this.dimension) {
      throw new UserError(`model ${this.name}: output has shape [${hidden.dims.join(', ')}], expected [${b}, ${s}, ${this.dimension}] (token states of its ragask-model.json dimension); this is not a model ragask can pool`);
    }
    const data = hidden.data as Float32Array;
    const d = this.dimension;
    const vectors: Vector[] = [];
    for (let i = 0; i < b; i++) {
      const v = new Float32Array(d);
      const len = batch[i]!.length;
      if (this.pooling === 'cls') {
        v.set(data.subarray(i * s * d, i * s * d + d));
      } else {
        for (let j = 0; j < len; j++) {
          const off = (i * s + j) * d;
          for (let k = 0; k < d; k++) v[k]! += data[off + k]!;
        }
        for (let k = 0; k < d; k++) v[k]! /= len;
      }
      vectors.push(normalize(v));
    }
    for (const t of Object.values(result)) t.dispose?.();
    return vectors;
  }

  async release(): Promise<void> {
    await this.queue;
    await this.session.release();
  }
}
