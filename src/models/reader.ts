import fs from 'node:fs';
import path from 'node:path';
import { createHash } from 'node:crypto';
import * as ort from 'onnxruntime-node';
import { UserError } from '../errors.js';
import { cpuSession, readManifest } from './registry.js';
import { BertTokenizer } from './tokenizer.js';
import { type ReaderPassage, type ReaderResult, type ReaderWindow, ANSWER_KINDS, type SpanCandidate, type AnswerKind } from './reader-types.js';
import { type PiecesWithOffsets, piecesWithOffsets, lengthGroups } from './reader-pieces.js';

/**
 * The extractive reader: a MiniLM-L6 fine-tuned by scripts/train_reader.py to read a question with
 * several passages and say where the answer is (a span), that it is yes or no, or that these
 * passages do not answer it. The input layout is the training script's, piece for piece:
 *
 *   [CLS] question [SEP] title₁ : text₁ [SEP] title₂ : text₂ [SEP] …
 *
 * Passages are packed in order into windows of at most `maxLength` pieces; a passage longer than a
 * window is cut into overlapping pieces. Spans start and end only inside a passage's text, and are
 * returned as character offsets into that text, so the answer is exactly what the passage says.
 */

/** What the training script writes beside the weights (ragask-model.json, kind "reader"). */
interface ReaderManifest {
  name: string;
  kind: string;
  maxLength?: number;
  reader?: { maxQuestion: number; stride: number; maxAnswer: number; titleTokens: number; tokenizer: { model: string; sha256: string } };
  sha256: Record<string, string>;
  variants?: Record<string, string>;
}

export interface ReaderOptions {
  modelsDir: string;
  model: string;
  variant?: 'fp32' | 'int8';
  threads: number;
}

/** A window's outputs: start and end logits per piece, and the answer-kind logits. */
interface WindowLogits {
  start: Float32Array;
  end: Float32Array;
  kind: Float32Array;
}

interface Window {
  ids: number[];
  types: number[];
  /** For each piece: [passage, char start, char end] when it is passage text a span may use, else null. */
  map: ([number, number, number] | null)[];
  passages: number[];
}

interface Layout {
  maxLength: number;
  maxQuestion: number;
  stride: number;
  titleTokens: number;
}

const softmax = (xs: readonly number[]): number[] => {
  const m = Math.max(...xs);
  const e = xs.map((x) => Math.exp(x - m));
  const s = e.reduce((a, b) => a + b, 0);
  return e.map((x) => x / s);
};

export class Reader {
  readonly name: string;
  private queue: Promise<unknown> = Promise.resolve();
  private readonly colonId: number;
  private readonly pieceCache = new Map<string, PiecesWithOffsets>();

  private constructor(
    private readonly session: ort.InferenceSession,
    readonly tokenizer: BertTokenizer,
    private readonly layout: Layout,
    readonly maxAnswer: number,
    name: string,
  ) {
    this.name = name;
    const colon = tokenizer.tokenToId(':');
    if (colon === undefined) throw new UserError(`${tokenizer.dir}: the tokenizer has no ":" piece; the reader needs the tokenizer it was trained with`);
    this.colonId = colon;
  }

  static async load(opts: ReaderOptions): Promise<Reader> {
    const manifest = readManifest(opts.modelsDir, opts.model) as unknown as ReaderManifest;
    const dir = path.join(opts.modelsDir, opts.model);
    if (manifest.kind !== 'reader' || !manifest.reader) throw new UserError(`model ${opts.model} is a ${manifest.kind} model, not a reader; set RAGASK_READER_MODEL to a reader (models/reader-minilm)`);
    const variant = opts.variant ?? 'int8';
    const fileName = manifest.variants?.[variant];
    if (!fileName) throw new UserError(`reader ${opts.model} has no ${variant} variant (has ${Object.keys(manifest.variants ?? {}).join(', ') || 'none'}); set RAGASK_READER_VARIANT to one of them`, 'model_missing');
    const file = path.join(dir, fileName);
    if (!fs.existsSync(file)) throw new UserError(`${file} is missing: the reader ships with ragask (models/reader-minilm); restore it with \`git checkout models/\` or rebuild it with \`npm run train-reader\``, 'model_missing');
    // The reader reads word pieces of the embedder's tokenizer: it must be the one it was trained on.
    const tokDir = path.join(opts.modelsDir, manifest.reader.tokenizer.model);
    const tokFile = path.join(tokDir, 'tokenizer.json');
    if (!fs.existsSync(tokFile)) throw new UserError(`${tokFile} is missing: the reader uses the ${manifest.reader.tokenizer.model} tokenizer; run \`npm run models\``, 'model_missing');
    const sha = createHash('sha256').update(fs.readFileSync(tokFile)).digest('hex');
    if (sha !== manifest.reader.tokenizer.sha256) throw new UserError(`${tokFile}: sha256 ${sha.slice(0, 12)}… is not the tokenizer the reader was trained with (${manifest.reader.tokenizer.sha256.slice(0, 12)}…); run \`npm run models -- --force\``, 'model_missing');
    const tokenizer = BertTokenizer.load(tokDir);
    const session = await cpuSession(file, opts.threads, 'restore it with `git checkout models/`');
    const r = manifest.reader;
    return new Reader(session, tokenizer, { maxLength: manifest.maxLength ?? 384, maxQuestion: r.maxQuestion, stride: r.stride, titleTokens: r.titleTokens }, r.maxAnswer, `${manifest.name}/${variant}`);
  }

  private pieces(text: string): PiecesWithOffsets {
    let hit = this.pieceCache.get(text);
    if (!hit) {
      hit = piecesWithOffsets(this.tokenizer, text);
      if (this.pieceCache.size > 5_000) this.pieceCache.clear();
      this.pieceCache.set(text, hit);
    }
    return hit;
  }

  /** The windows the model reads for a question and passages (exported for tests of the layout). */
  windows(question: string, passages: readonly ReaderPassage[]): Window[] {
    const { maxLength, maxQuestion, stride, titleTokens } = this.layout;
    const head = [this.tokenizer.clsId, ...this.pieces(question).ids.slice(0, maxQuestion), this.tokenizer.sepId];
    const room = maxLength - head.length;
    const out: Window[] = [];
    let segs: { p: number; title: number[]; a: number; b: number }[] = [];
    let used = 0;
    const flush = () => {
      if (!segs.length) return;
      const ids = [...head];
      const map: Window['map'] = head.map(() => null);
      for (const { p, title, a, b } of segs) {
        const t = this.pieces(passages[p]!.text);
        if (title.length) {
          ids.push(...title, this.colonId);
          for (let i = 0; i <= title.length; i++) map.push(null);
        }
        for (let i = a; i < b; i++) {
          ids.push(t.ids[i]!);
          map.push([p, t.starts[i]!, t.ends[i]!]);
        }
        ids.push(this.tokenizer.sepId);
        map.push(null);
      }
      out.push({ ids, types: ids.map((_, i) => (i < head.length ? 0 : 1)), map, passages: [...new Set(segs.map((s) => s.p))] });
      segs = [];
      used = 0;
    };
    passages.forEach((passage, p) => {
      const title = passage.title ? this.pieces(passage.title).ids.slice(0, titleTokens) : [];
      const n = this.pieces(passage.text).ids.length;
      const extra = title.length + (title.length ? 1 : 0) + 1;
      if (used + extra + n <= room) {
        segs.push({ p, title, a: 0, b: n });
        used += extra + n;
        return;
      }
      flush();
      if (extra + n <= room) {
        segs.push({ p, title, a: 0, b: n });
        used = extra + n;
        return;
      }
      const span = room - extra;
      for (let start = 0; ; start = Math.max(start + 1, start + span - stride)) {
        const end = Math.min(n, start + span);
        segs.push({ p, title, a: start, b: end });
        used = extra + (end - start);
        flush();
        if (end >= n) break;
      }
    });
    flush();
    return out;
  }

  /** Reads `passages` for `question` (one onnxruntime call per group of windows of about one length). */
  read(question: string, passages: readonly ReaderPassage[], opts: { spansPerWindow?: number } = {}): Promise<ReaderResult> {
    const run = this.queue.then(() => this.readNow(question, passages, opts.spansPerWindow ?? 5));
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async readNow(question: string, passages: readonly ReaderPassage[], spansPerWindow: number): Promise<ReaderResult> {
    const t0 = performance.now();
    const windows = passages.length ? this.windows(question, passages) : [];
    const logits = new Map<Window, WindowLogits>();
    for (const group of lengthGroups(windows)) {
      const out = await this.runWindows(group);
      for (const [i, w] of group.entries()) logits.set(w, out[i]!);
    }
    const outs: ReaderWindow[] = windows.map((w, i) => {
      const { start, end, kind } = logits.get(w)!;
      const probs = softmax([...kind]);
      return {
        passages: w.passages,
        probs: { span: probs[0]!, yes: probs[1]!, no: probs[2]!, none: probs[3]! },
        spans: this.bestSpans(w, start, end, passages, i, spansPerWindow),
      };
    });
    return { windows: outs, ...decide(outs), ms: performance.now() - t0 };
  }

  /** One onnxruntime call for `windows`, padded to the longest of them; each window's logits. */
  private async runWindows(windows: readonly Window[]): Promise<WindowLogits[]> {
    const b = windows.length;
    const s = Math.max(...windows.map((w) => w.ids.length));
    const ids = new BigInt64Array(b * s);
    const mask = new BigInt64Array(b * s);
    const types = new BigInt64Array(b * s);
    windows.forEach((w, i) => {
      for (let j = 0; j < w.ids.length; j++) {
        ids[i * s + j] = BigInt(w.ids[j]!);
        mask[i * s + j] = 1n;
        types[i * s + j] = BigInt(w.types[j]!);
      }
    });
    const result = await this.session.run({
      input_ids: new ort.Tensor('int64', ids, [b, s]),
      attention_mask: new ort.Tensor('int64', mask, [b, s]),
      token_type_ids: new ort.Tensor('int64', types, [b, s]),
    });
    const start = result.start_logits?.data as Float32Array | undefined;
    const end = result.end_logits?.data as Float32Array | undefined;
    const kind = result.type_logits?.data as Float32Array | undefined;
    if (!start || !end || !kind || kind.length !== b * ANSWER_KINDS.length) throw new UserError(`reader ${this.name}: outputs are not start_logits, end_logits, type_logits; this is not a ragask reader`);
    // copies: the tensors' memory is released below
    const out = windows.map((_, i) => ({
      start: start.slice(i * s, i * s + s),
      end: end.slice(i * s, i * s + s),
      kind: kind.slice(i * 4, i * 4 + 4),
    }));
    for (const t of Object.values(result)) t.dispose?.();
    return out;
  }

  /** The best spans of a window, by start + end logit, at most maxAnswer pieces, distinct by text. */
  private bestSpans(w: Window, start: Float32Array, end: Float32Array, passages: readonly ReaderPassage[], window: number, k: number): SpanCandidate[] {
    const ok: number[] = [];
    for (let i = 0; i < w.map.length; i++) if (w.map[i]) ok.push(i);
    const top = (logits: Float32Array) => [...ok].sort((a, b) => logits[b]! - logits[a]!).slice(0, 20);
    const starts = top(start);
    const ends = top(end);
    const pairs: { a: number; b: number; score: number }[] = [];
    const inRange = (p: number, from: number, to: number) => {
      const ranges = passages[p]!.answerRanges;
      return !ranges || ranges.some(([x, y]) => x <= from && to <= y);
    };
    for (const a of starts) {
      for (const b of ends) {
        if (b < a || b - a + 1 > this.maxAnswer) continue;
        // a span stays inside one passage (and one cell of a table row)
        if (w.map[a]![0] !== w.map[b]![0] || !inRange(w.map[a]![0], w.map[a]![1], w.map[b]![2])) continue;
        pairs.push({ a, b, score: start[a]! + end[b]! });
      }
    }
    pairs.sort((x, y) => y.score - x.score);
    // every cell of a table row gets its best reading too: the value asked for may stand in a cell
    // the top logits pass over ("Default: MaxKeepAliveRequests 100" beside the row the question matched)
    const cells = [...this.cellSpans(w, start, end, passages), ...this.typedSpans(w, start, end, passages)];
    const out: SpanCandidate[] = [];
    const seen = new Set<string>();
    // distinct texts: the top k pairs, then each cell's best (always kept, past k)
    const take = ({ a, b, score }: { a: number; b: number; score: number }) => {
      const [p, cs] = w.map[a]!;
      const ce = w.map[b]![2];
      const text = passages[p]!.text.slice(cs, ce);
      const key = text.toLowerCase();
      if (seen.has(key)) return;
      seen.add(key);
      out.push({ passage: p, start: cs, end: ce, text, score, window });
    };
    for (const pair of pairs) {
      if (out.length >= k) break;
      take(pair);
    }
    for (const pair of cells) take(pair);
    return out;
  }

  /** The best span inside each cell of each table row in a window (by start + end logit). */
  private cellSpans(w: Window, start: Float32Array, end: Float32Array, passages: readonly ReaderPassage[]): { a: number; b: number; score: number }[] {
    const out: { a: number; b: number; score: number }[] = [];
    for (const p of w.passages) {
      const ranges = passages[p]!.answerRanges;
      if (!ranges) continue;
      for (const [from, to] of ranges) {
        const idx: number[] = [];
        for (let i = 0; i < w.map.length; i++) {
          const m = w.map[i];
          if (m && m[0] === p && m[1] >= from && m[2] <= to) idx.push(i);
        }
        let best: { a: number; b: number; score: number } | null = null;
        for (const a of idx) for (const b of idx) if (b >= a && b - a + 1 <= this.maxAnswer && (!best || start[a]! + end[b]! > best.score)) best = { a, b, score: start[a]! + end[b]! };
        if (best) out.push(best);
      }
    }
    return out;
  }

  /** Each candidate range of each passage in a window, scored whole (its first piece to its last). */
  private typedSpans(w: Window, start: Float32Array, end: Float32Array, passages: readonly ReaderPassage[]): { a: number; b: number; score: number }[] {
    const out: { a: number; b: number; score: number }[] = [];
    const byPassage = new Map<number, number[]>();
    w.map.forEach((m, i) => {
      if (m) byPassage.set(m[0], [...(byPassage.get(m[0]) ?? []), i]);
    });
    for (const [p, idx] of byPassage) {
      const ranges = passages[p]!.candidateRanges;
      if (!ranges?.length) continue;
      for (const [from, to] of ranges) {
        let a = -1;
        let b = -1;
        for (const i of idx) {
          const m = w.map[i]!;
          if (m[1] >= from && m[2] <= to) {
            if (a < 0) a = i;
            b = i;
          }
        }
        if (a >= 0 && b - a + 1 <= this.maxAnswer && w.map[a]![1] === from && w.map[b]![2] === to) out.push({ a, b, score: start[a]! + end[b]! });
      }
    }
    return out;
  }

  async release(): Promise<void> {
    await this.queue;
    await this.session.release();
  }
}

/**
 * The reading of a set of windows, as the training script's dev evaluation decides it: the window
 * that most believes it holds the answer (highest 1 − P(none)), and its most likely kind.
 */
export function decide(windows: readonly ReaderWindow[]): Pick<ReaderResult, 'kind' | 'pAnswer' | 'pKind' | 'window' | 'span'> {
  let best = -1;
  windows.forEach((w, i) => {
    if (best < 0 || 1 - w.probs.none > 1 - windows[best]!.probs.none) best = i;
  });
  if (best < 0) return { kind: 'none', pAnswer: 0, pKind: 1, window: -1, span: null };
  const w = windows[best]!;
  const pAnswer = 1 - w.probs.none;
  const kinds: AnswerKind[] = ['span', 'yes', 'no'];
  const kind = kinds.reduce((a, k) => (w.probs[k] > w.probs[a] ? k : a), 'span' as AnswerKind);
  const pKind = pAnswer > 0 ? w.probs[kind] / pAnswer : 0;
  if (kind === 'span') {
    const span = w.spans[0] ?? null;
    return { kind: span ? 'span' : 'none', pAnswer, pKind, window: best, span };
  }
  return { kind, pAnswer, pKind, window: best, span: null };
}
