import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Config } from '../../config.js';
import { openCore } from '../../core.js';
import type { EvalDataset } from '../../eval/dataset.js';
import { ingest } from '../../ingest/ingest.js';
import { withIngestEncoder } from '../../workers/encoder-pool.js';
import { windowEmbeddingText } from '../../ingest/windows.js';
import { dropPgSchema } from '../../store/open.js';
import { progressBar } from '../progress.js';

/** Ingest against the encoder's own limit on the same windows, measured in one run. */
export interface IngestBenchRow {
  backend: 'sqlite' | 'postgres';
  documents: number;
  windows: number;
  ingest_s: number;
  ingest_windows_per_s: number;
  raw_encode_s: number;
  raw_encode_windows_per_s: number;
  /** ingest_windows_per_s / raw_encode_windows_per_s: 1 is ingest as fast as encoding alone. */
  ratio: number;
}

/** The batch the raw encode runs in: ingest's own (BATCH_WINDOWS), so both see the same batches. */
const RAW_BATCH = 256;

/**
 * Ingests the dataset into a fresh store of each backend (the embedded one, and PostgreSQL in a
 * schema of its own when RAGASK_DATABASE_URL is set), then encodes the very windows it wrote, alone,
 * in batches like ingest's: how close ingest comes to the encoder.
 */
export async function ingestBench(
  base: Config,
  dataset: EvalDataset,
  err: (s: string) => void,
): Promise<IngestBenchRow[]> {
  const rows = [await benchSqlite(base, dataset, err)];
  if (base.databaseUrl) rows.push(await benchPostgres(base, base.databaseUrl, dataset, err));
  return rows;
}

async function benchSqlite(base: Config, dataset: EvalDataset, err: (s: string) => void): Promise<IngestBenchRow> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ragask-bench-ingest-'));
  try {
    return await benchOne({ ...base, dataDir: dir, databaseUrl: null, databaseSchema: null }, 'sqlite', dataset, err);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

async function benchPostgres(
  base: Config,
  url: string,
  dataset: EvalDataset,
  err: (s: string) => void,
): Promise<IngestBenchRow> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ragask-bench-ingest-'));
  const schema = `ragask_bench_ingest_${process.pid}_${Date.now()}`;
  try {
    return await benchOne(
      { ...base, dataDir: dir, databaseUrl: url, databaseSchema: schema },
      'postgres',
      dataset,
      err,
    );
  } finally {
    await dropPgSchema(url, schema);
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

async function benchOne(
  storeConfig: Config,
  backend: IngestBenchRow['backend'],
  dataset: EvalDataset,
  err: (s: string) => void,
): Promise<IngestBenchRow> {
  const config: Config = { ...storeConfig, queryCacheTtlS: 0 };
  const core = await openCore(config);
  try {
    await core.encoder.encodeOne('warm up');
    err(`bench: ingest (${backend})\n`);
    const t0 = performance.now();
    const rep = await withIngestEncoder(config, core.encoder.dimension, (batchEncoder) =>
      ingest(
        { store: core.store, encoder: core.encoder, batchEncoder, config, progress: progressBar() },
        dataset.inputs,
        {
          exclude: [path.join(dataset.dir, 'questions.jsonl')],
        },
      ),
    );
    const ingestS = (performance.now() - t0) / 1000;
    const texts = (await core.store.vectors.windowTexts()).map((w) =>
      windowEmbeddingText(w.title, w.headingPath, w.text),
    );
    err(`bench: encoding the same ${texts.length} windows alone\n`);
    const t1 = performance.now();
    for (let i = 0; i < texts.length; i += RAW_BATCH) await core.encoder.encode(texts.slice(i, i + RAW_BATCH));
    const rawS = (performance.now() - t1) / 1000;
    const ingestRate = rep.windows / Math.max(1e-9, ingestS);
    const rawRate = texts.length / Math.max(1e-9, rawS);
    return {
      backend,
      documents: rep.added + rep.updated,
      windows: rep.windows,
      ingest_s: +ingestS.toFixed(2),
      ingest_windows_per_s: +ingestRate.toFixed(1),
      raw_encode_s: +rawS.toFixed(2),
      raw_encode_windows_per_s: +rawRate.toFixed(1),
      ratio: +(ingestRate / rawRate).toFixed(3),
    };
  } finally {
    await core.close();
  }
}

export function formatIngest(rows: readonly IngestBenchRow[]): string {
  return [
    '| backend | documents | windows | ingest s | ingest windows/s | raw encode s | raw encode windows/s | ratio |',
    '| --- | --- | --- | --- | --- | --- | --- | --- |',
    ...rows.map(
      (r) =>
        `| ${r.backend} | ${r.documents} | ${r.windows} | ${r.ingest_s} | ${r.ingest_windows_per_s} | ${r.raw_encode_s} | ${r.raw_encode_windows_per_s} | ${r.ratio} |`,
    ),
  ].join('\n');
}
