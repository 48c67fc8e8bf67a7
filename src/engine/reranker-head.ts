import fs from 'node:fs';
import { UserError } from '../errors.js';
import { dot } from '../models/encoder.js';
import type { WindowScorer } from './rerank.js';

/**
 * The rerank head over the frozen encoder: a small MLP on [q, d, q⊙d] whose output is added to the
 * cosine, s(q, d) = cos(q, d) + w2·relu(W1·[q, d, q⊙d] + b1) + b2. With w2 = 0 it is the cosine
 * exactly, so training starts from the default and learns a correction.
 */
export interface HeadWeights {
  format: 1;
  model: string;
  dimension: number;
  hidden: number;
  /** hidden × (3·dimension), row-major. */
  w1: number[];
  b1: number[];
  w2: number[];
  b2: number;
  trainedOn: { pairs: number; epochs: number; finalLoss: number; date: string };
}

export class HeadScorer implements WindowScorer {
  readonly name = 'head';
  private readonly w1: Float32Array;
  private readonly b1: Float32Array;
  private readonly w2: Float32Array;
  private readonly d: number;
  private readonly h: number;
  private readonly b2: number;

  constructor(readonly weights: HeadWeights) {
    this.d = weights.dimension;
    this.h = weights.hidden;
    this.w1 = Float32Array.from(weights.w1);
    this.b1 = Float32Array.from(weights.b1);
    this.w2 = Float32Array.from(weights.w2);
    this.b2 = weights.b2;
  }

  static load(file: string, model: string, dimension: number): HeadScorer {
    if (!fs.existsSync(file))
      throw new UserError(
        `RAGASK_RERANKER=head but ${file} does not exist: run \`ragask train-reranker\` first, or set RAGASK_RERANKER=cosine`,
      );
    let w: HeadWeights;
    try {
      w = JSON.parse(fs.readFileSync(file, 'utf8')) as HeadWeights;
    } catch (e) {
      throw new UserError(`${file}: not a rerank head (${(e as Error).message}); run \`ragask train-reranker\` again`);
    }
    if (w.format !== 1 || w.dimension !== dimension || w.model !== model || w.w1.length !== w.hidden * 3 * dimension) {
      throw new UserError(
        `${file} was trained for ${w.model} (${w.dimension}-d), not ${model}: run \`ragask train-reranker\` again`,
      );
    }
    return new HeadScorer(w);
  }

  /** Pre-activation of the query-only part, shared by every window of one query. */
  private queryPart(q: Float32Array): Float32Array {
    const { d, h } = this;
    const out = new Float32Array(h);
    for (let k = 0; k < h; k++) {
      let s = this.b1[k]!;
      const row = k * 3 * d;
      for (let i = 0; i < d; i++) s += this.w1[row + i]! * q[i]!;
      out[k] = s;
    }
    return out;
  }

  score(q: Float32Array, windows: readonly Float32Array[]): number[] {
    const { d, h } = this;
    const qp = this.queryPart(q);
    return windows.map((w) => {
      let s = dot(q, w) + this.b2;
      for (let k = 0; k < h; k++) {
        let z = qp[k]!;
        const row = k * 3 * d;
        for (let i = 0; i < d; i++) z += this.w1[row + d + i]! * w[i]! + this.w1[row + 2 * d + i]! * q[i]! * w[i]!;
        if (z > 0) s += this.w2[k]! * z;
      }
      return s;
    });
  }
}

export interface TrainOptions {
  hidden?: number;
  epochs?: number;
  batchSize?: number;
  learningRate?: number;
  temperature?: number;
  seed?: number;
  onEpoch?: (epoch: number, loss: number) => void;
  onBatch?: (done: number, total: number) => void;
}

/** Deterministic PRNG (mulberry32) so a training run can be repeated exactly. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Trains the head on (query, positive window) pairs with in-batch negatives (InfoNCE): in each
 * batch every query must score its own window above the other queries' windows. Adam, plain loops.
 */
export function trainHead(
  pairs: readonly { q: Float32Array; d: Float32Array }[],
  model: string,
  opts: TrainOptions = {},
): HeadWeights {
  if (pairs.length < 8)
    throw new UserError(
      `train-reranker needs at least 8 training pairs (got ${pairs.length}); ingest more documents first`,
    );
  const dim = pairs[0]!.q.length;
  const H = opts.hidden ?? 32;
  const B = Math.min(opts.batchSize ?? 32, pairs.length);
  const epochs = opts.epochs ?? 3;
  const lr = opts.learningRate ?? 1e-3;
  const tau = opts.temperature ?? 0.05;
  const rand = rng(opts.seed ?? 42);
  const in3 = 3 * dim;
  const w1 = new Float32Array(H * in3).map(() => (rand() * 2 - 1) * Math.sqrt(6 / (in3 + H)));
  const b1 = new Float32Array(H);
  const w2 = new Float32Array(H);
  let b2 = 0;
  // Adam state
  const m1 = new Float32Array(w1.length);
  const v1 = new Float32Array(w1.length);
  const mb1 = new Float32Array(H);
  const vb1 = new Float32Array(H);
  const mw2 = new Float32Array(H);
  const vw2 = new Float32Array(H);
  let mb2 = 0;
  let vb2 = 0;
  const beta1 = 0.9;
  const beta2 = 0.999;
  const eps = 1e-8;
  let step = 0;
  let lastLoss = 0;
  const order = pairs.map((_, i) => i);
  const batchesPerEpoch = Math.floor(pairs.length / B);
  let batchesDone = 0;

  for (let epoch = 0; epoch < epochs; epoch++) {
    for (let i = order.length - 1; i > 0; i--) {
      const j = Math.floor(rand() * (i + 1));
      [order[i], order[j]] = [order[j]!, order[i]!];
    }
    let epochLoss = 0;
    for (let bi = 0; bi < batchesPerEpoch; bi++) {
      const batch = order.slice(bi * B, bi * B + B).map((i) => pairs[i]!);
      const gw1 = new Float32Array(w1.length);
      const gb1 = new Float32Array(H);
      const gw2 = new Float32Array(H);
      let gb2 = 0;
      // query and document parts of the first layer, once per batch
      const qp = batch.map((p) => {
        const o = new Float32Array(H);
        for (let k = 0; k < H; k++) {
          let s = b1[k]!;
          for (let i = 0; i < dim; i++) s += w1[k * in3 + i]! * p.q[i]!;
          o[k] = s;
        }
        return o;
      });
      const dp = batch.map((p) => {
        const o = new Float32Array(H);
        for (let k = 0; k < H; k++) {
          let s = 0;
          for (let i = 0; i < dim; i++) s += w1[k * in3 + dim + i]! * p.d[i]!;
          o[k] = s;
        }
        return o;
      });
      const z = new Float32Array(B * B * H);
      const scores = new Float32Array(B * B);
      for (let a = 0; a < B; a++) {
        const q = batch[a]!.q;
        for (let c = 0; c < B; c++) {
          const d = batch[c]!.d;
          let s = dot(q, d) + b2;
          for (let k = 0; k < H; k++) {
            let zz = qp[a]![k]! + dp[c]![k]!;
            const row = k * in3 + 2 * dim;
            for (let i = 0; i < dim; i++) zz += w1[row + i]! * q[i]! * d[i]!;
            z[(a * B + c) * H + k] = zz;
            if (zz > 0) s += w2[k]! * zz;
          }
          scores[a * B + c] = s;
        }
      }
      // softmax cross-entropy, target = the diagonal
      let loss = 0;
      const g = new Float32Array(B * B);
      for (let a = 0; a < B; a++) {
        let max = -Infinity;
        for (let c = 0; c < B; c++) max = Math.max(max, scores[a * B + c]! / tau);
        let sum = 0;
        for (let c = 0; c < B; c++) sum += Math.exp(scores[a * B + c]! / tau - max);
        loss += -(scores[a * B + a]! / tau - max - Math.log(sum));
        for (let c = 0; c < B; c++)
          g[a * B + c] = (Math.exp(scores[a * B + c]! / tau - max) / sum - (a === c ? 1 : 0)) / (tau * B);
      }
      loss /= B;
      epochLoss += loss;
      // backward
      for (let a = 0; a < B; a++) {
        const q = batch[a]!.q;
        for (let c = 0; c < B; c++) {
          const gs = g[a * B + c]!;
          if (gs === 0) continue;
          const d = batch[c]!.d;
          gb2 += gs;
          for (let k = 0; k < H; k++) {
            const zz = z[(a * B + c) * H + k]!;
            if (zz <= 0) continue;
            gw2[k]! += gs * zz;
            const gz = gs * w2[k]!;
            if (gz === 0) continue;
            gb1[k]! += gz;
            const row = k * in3;
            for (let i = 0; i < dim; i++) {
              gw1[row + i]! += gz * q[i]!;
              gw1[row + dim + i]! += gz * d[i]!;
              gw1[row + 2 * dim + i]! += gz * q[i]! * d[i]!;
            }
          }
        }
      }
      step++;
      const c1 = 1 - beta1 ** step;
      const c2 = 1 - beta2 ** step;
      const adam = (w: Float32Array, gr: Float32Array, m: Float32Array, v: Float32Array) => {
        for (let i = 0; i < w.length; i++) {
          m[i] = beta1 * m[i]! + (1 - beta1) * gr[i]!;
          v[i] = beta2 * v[i]! + (1 - beta2) * gr[i]! * gr[i]!;
          w[i]! -= (lr * (m[i]! / c1)) / (Math.sqrt(v[i]! / c2) + eps);
        }
      };
      adam(w1, gw1, m1, v1);
      adam(b1, gb1, mb1, vb1);
      adam(w2, gw2, mw2, vw2);
      mb2 = beta1 * mb2 + (1 - beta1) * gb2;
      vb2 = beta2 * vb2 + (1 - beta2) * gb2 * gb2;
      b2 -= (lr * (mb2 / c1)) / (Math.sqrt(vb2 / c2) + eps);
      opts.onBatch?.(++batchesDone, batchesPerEpoch * epochs);
    }
    lastLoss = epochLoss / Math.max(1, batchesPerEpoch);
    opts.onEpoch?.(epoch + 1, lastLoss);
  }
  return {
    format: 1,
    model,
    dimension: dim,
    hidden: H,
    w1: Array.from(w1),
    b1: Array.from(b1),
    w2: Array.from(w2),
    b2,
    trainedOn: { pairs: pairs.length, epochs, finalLoss: lastLoss, date: new Date().toISOString() },
  };
}

/** In-batch InfoNCE loss of a scorer on pairs (lower is better): the same objective, for checking. */
export function contrastiveLoss(
  scorer: WindowScorer,
  pairs: readonly { q: Float32Array; d: Float32Array }[],
  batchSize = 32,
  tau = 0.05,
): number {
  let total = 0;
  let n = 0;
  for (let s = 0; s + batchSize <= pairs.length; s += batchSize) {
    const batch = pairs.slice(s, s + batchSize);
    const ds = batch.map((p) => p.d);
    for (let a = 0; a < batch.length; a++) {
      const sc = scorer.score(batch[a]!.q, ds).map((x) => x / tau);
      const max = Math.max(...sc);
      const lse = max + Math.log(sc.reduce((acc, x) => acc + Math.exp(x - max), 0));
      total += lse - sc[a]!;
      n++;
    }
  }
  return n ? total / n : 0;
}
