import * as ort from 'onnxruntime-node';
import { UserError } from '../errors.js';
import { cpuSession, resolveModel } from './registry.js';
import { BertTokenizer } from './tokenizer.js';

export const MASK = '[MASK]';

export interface MaskedLMOptions {
  modelsDir: string;
  model: string;
  threads: number;
}

export interface FilledToken {
  token: string;
  id: number;
  logProb: number;
}

function logSoftmaxAt(logits: Float32Array, offset: number, size: number): (id: number) => number {
  let max = -Infinity;
  for (let k = 0; k < size; k++) max = Math.max(max, logits[offset + k]!);
  let sum = 0;
  for (let k = 0; k < size; k++) sum += Math.exp(logits[offset + k]! - max);
  const logZ = max + Math.log(sum);
  return (id) => logits[offset + id]! - logZ;
}

/**
 * Fill-mask on a BERT-with-MLM-head ONNX (input_ids, attention_mask, token_type_ids → logits).
 * Used to score how plausible a bridge entity is in the slot of a question ("… the [MASK] used in
 * Project Falcon"): a candidate of n word pieces fills n masks, scored by its mean log-probability.
 */
export class MaskedLM {
  private queue: Promise<unknown> = Promise.resolve();

  private constructor(
    private readonly session: ort.InferenceSession,
    readonly tokenizer: BertTokenizer,
    readonly name: string,
    private readonly maxLength: number,
  ) {}

  static async load(opts: MaskedLMOptions): Promise<MaskedLM> {
    const { dir, file, manifest } = resolveModel(opts.modelsDir, opts.model);
    if (manifest.kind !== 'masked-lm') throw new UserError(`RAGASK_MLM_MODEL: ${opts.model} is a ${manifest.kind} model, not a masked LM; set it to a BertForMaskedLM export or leave it empty`);
    const tokenizer = BertTokenizer.load(dir);
    const session = await cpuSession(file, opts.threads, 'run `npm run models -- --force`');
    return new MaskedLM(session, tokenizer, manifest.name, manifest.maxLength ?? 128);
  }

  private split(template: string): { left: number[]; right: number[] } {
    const at = template.indexOf(MASK);
    if (at < 0 || template.indexOf(MASK, at + 1) >= 0) throw new Error(`template must contain ${MASK} exactly once: ${template}`);
    return { left: this.tokenizer.pieces(template.slice(0, at)), right: this.tokenizer.pieces(template.slice(at + MASK.length)) };
  }

  private async logits(batch: number[][]): Promise<{ data: Float32Array; seq: number; vocab: number }> {
    const b = batch.length;
    const s = Math.max(...batch.map((x) => x.length));
    const ids = new BigInt64Array(b * s);
    const mask = new BigInt64Array(b * s);
    for (const [i, row] of batch.entries()) {
      for (const [j, v] of row.entries()) {
        ids[i * s + j] = BigInt(v);
        mask[i * s + j] = 1n;
      }
    }
    const run = this.queue.then(() =>
      this.session.run({
        input_ids: new ort.Tensor('int64', ids, [b, s]),
        attention_mask: new ort.Tensor('int64', mask, [b, s]),
        token_type_ids: new ort.Tensor('int64', new BigInt64Array(b * s), [b, s]),
      }),
    );
    this.queue = run.catch(() => undefined);
    const out = await run;
    const t = out[this.session.outputNames[0]!]!;
    const vocab = t.dims[2]!;
    return { data: t.data as Float32Array, seq: s, vocab };
  }

  /** Keeps the context around the mask when a sentence is longer than the model allows. */
  private fit(left: number[], fill: number[], right: number[]): number[] {
    const room = this.maxLength - 2 - fill.length;
    let l = left;
    let r = right;
    while (l.length + r.length > room && (l.length || r.length)) {
      if (l.length >= r.length) l = l.slice(1);
      else r = r.slice(0, -1);
    }
    return [this.tokenizer.clsId, ...l, ...fill, ...r, this.tokenizer.sepId];
  }

  /** The most likely single word pieces for the one [MASK] in `template`. */
  async fillMask(template: string, topK = 5): Promise<FilledToken[]> {
    const { left, right } = this.split(template);
    const seq = this.fit(left, [this.tokenizer.maskId], right);
    const pos = seq.indexOf(this.tokenizer.maskId);
    const { data, vocab } = await this.logits([seq]);
    const lp = logSoftmaxAt(data, pos * vocab, vocab);
    const scored: FilledToken[] = [];
    for (let id = 0; id < vocab; id++) scored.push({ id, token: this.tokenizer.idToToken(id) ?? '', logProb: lp(id) });
    return scored.sort((a, b) => b.logProb - a.logProb).slice(0, topK);
  }

  /**
   * Mean log-probability of each candidate's word pieces placed in the [MASK] slot (all pieces
   * masked at once). Higher is more plausible; comparable across candidates of different lengths.
   */
  async scoreCandidates(template: string, candidates: readonly string[]): Promise<number[]> {
    if (candidates.length === 0) return [];
    const { left, right } = this.split(template);
    const rows = candidates.map((c) => {
      const pieces = this.tokenizer.pieces(c).slice(0, 8);
      const fill = pieces.length ? pieces : [this.tokenizer.unkId];
      const seq = this.fit(left, fill.map(() => this.tokenizer.maskId), right);
      return { seq, fill, start: seq.indexOf(this.tokenizer.maskId) };
    });
    const { data, seq: s, vocab } = await this.logits(rows.map((r) => r.seq));
    return rows.map((r, i) => {
      let total = 0;
      r.fill.forEach((id, j) => {
        total += logSoftmaxAt(data, (i * s + r.start + j) * vocab, vocab)(id);
      });
      return total / r.fill.length;
    });
  }

  async release(): Promise<void> {
    await this.queue;
    await this.session.release();
  }
}
