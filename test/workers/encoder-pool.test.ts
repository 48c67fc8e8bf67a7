import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Config } from '../../src/config.js';
import { ingest } from '../../src/ingest/ingest.js';
import type { BatchEncoder } from '../../src/ingest/types.js';
import { Encoder, type Vector } from '../../src/models/encoder.js';
import { SqliteStore } from '../../src/store/sqlite/store.js';
import type { Store } from '../../src/store/interfaces.js';
import { WorkerEncoder } from '../../src/workers/encoder-pool.js';
import { tempDir, testConfig } from '../helpers.js';

// The encoder in a worker thread, for ingest: the same vectors as in this thread, and an ingest
// that hands a batch to it goes on parsing and writing instead of waiting for the vectors.

let dir: string;
let config: Config;
let encoder: Encoder;
let worker: WorkerEncoder;

beforeAll(async () => {
  dir = tempDir();
  config = testConfig(path.join(dir, 'data'));
  const opts = { modelsDir: config.modelsDir, model: config.model, variant: config.modelVariant, threads: 1 };
  encoder = await Encoder.load(opts);
  worker = await WorkerEncoder.start({ ...opts, dimension: encoder.dimension });
}, 120_000);

afterAll(async () => {
  await worker?.close();
  await encoder?.release();
  fs.rmSync(dir, { recursive: true, force: true });
});

const openStore = (name: string): Store =>
  SqliteStore.open({
    dataDir: path.join(dir, name),
    model: encoder.id,
    dimension: encoder.dimension,
    hnsw: config.hnsw,
  });

/** Forty small documents of eight paragraphs: several of ingest's batches of 256 windows. */
function writeDocs(folder: string): void {
  fs.mkdirSync(folder, { recursive: true });
  for (let d = 0; d < 40; d++) {
    const paragraphs = Array.from(
      { length: 8 },
      (_, p) => `Service ${d} keeps its setting number ${p} at ${d * 10 + p} units, reviewed by team ${p}.`,
    );
    fs.writeFileSync(path.join(folder, `doc-${d}.md`), `# Service ${d}\n\n${paragraphs.join('\n\n')}\n`);
  }
}

describe('the encoder in a worker thread', () => {
  it('gives the vectors the encoder gives in this thread', async () => {
    const texts = ['The radio team lead is Mirela Ostrowski.', 'Calibration offset at −20 °C', 'x'];
    const here = await encoder.encode(texts);
    const there = await worker.encode(texts);
    expect(there).toHaveLength(3);
    expect(there[0]).toHaveLength(384);
    for (const [i, v] of there.entries())
      expect(Math.max(...v.map((x, j) => Math.abs(x - here[i]![j]!)))).toBeLessThan(1e-5);
    expect(await worker.encode([])).toEqual([]);
  });

  it('ingests through the worker into the store an in-thread ingest writes', async () => {
    const docs = path.join(dir, 'docs');
    writeDocs(docs);
    const viaWorker = openStore('via-worker');
    const inThread = openStore('in-thread');
    try {
      const a = await ingest({ store: viaWorker, encoder, batchEncoder: worker, config }, [docs]);
      const b = await ingest({ store: inThread, encoder, config }, [docs]);
      expect(a.failed).toEqual([]);
      expect(a.added).toBe(40);
      expect(b.added).toBe(40);
      expect(a.windows).toBe(b.windows);
      const ca = await viaWorker.documents.counts();
      expect(ca.documents).toBe(40);
      expect(await viaWorker.index.size()).toBe(ca.windows);
      // the same windows under the same ids, each with the vector this thread's encoder gave
      const va = await viaWorker.vectors.allWindowVectors();
      const vb = await inThread.vectors.allWindowVectors();
      expect(va.map((w) => w.id)).toEqual(vb.map((w) => w.id));
      const worst = Math.max(...va.map((w, i) => Math.max(...w.vector.map((x, j) => Math.abs(x - vb[i]!.vector[j]!)))));
      expect(worst).toBeLessThan(1e-5);
    } finally {
      await viaWorker.close();
      await inThread.close();
    }
  }, 120_000);

  it('hands the next batch to the encoder before the last batch is written', async () => {
    const docs = path.join(dir, 'docs');
    writeDocs(docs);
    const store = openStore('pipelined');
    // the first batch's vectors are held back until the second batch is asked for: an ingest that
    // waited for each batch's vectors before reading on would never ask, and would hang here
    let release: () => void = () => undefined;
    const held = new Promise<void>((r) => {
      release = r;
    });
    const calls: number[] = [];
    const gated: BatchEncoder = {
      async encode(texts: readonly string[]): Promise<Vector[]> {
        calls.push(texts.length);
        if (calls.length === 1) {
          const vectors = await encoder.encode(texts);
          const waited = new Promise<never>((_, reject) =>
            setTimeout(
              () => reject(new Error('the ingest waited for the first batch before reading on')),
              20_000,
            ).unref(),
          );
          await Promise.race([held, waited]);
          return vectors;
        }
        release();
        return encoder.encode(texts);
      },
    };
    try {
      const r = await ingest({ store, encoder, batchEncoder: gated, config }, [docs]);
      expect(calls.length).toBeGreaterThanOrEqual(2);
      expect(r.added).toBe(40);
      expect((await store.documents.counts()).documents).toBe(40);
    } finally {
      await store.close();
    }
  }, 120_000);
});
