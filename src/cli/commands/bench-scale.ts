import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Config } from '../../config.js';
import { openCore } from '../../core.js';
import { resolveModel } from '../../models/registry.js';
import { copyStore } from '../../store/copy.js';
import { openStore } from '../../store/open.js';
import type { EvalDataset } from '../../eval/dataset.js';
import { percentile } from '../../eval/metrics.js';
import { FILLER_RECIPE, loadFillerPool, writeFiller, type FillerPassage } from '../../eval/scale.js';
import { ingest } from '../../ingest/ingest.js';
import { LOCAL } from '../../store/access.js';
import { UserError } from '../../errors.js';
import { progressBar } from '../progress.js';
import { INGEST_VERSION } from '../../ingest/types.js';

/** One corpus size's figures: the same questions, the multi-hop engine without the reader's share. */
export interface ScaleRow {
  /** The store measured: the embedded SQLite + hnswlib one, or PostgreSQL + pgvector (a copy of it). */
  backend: 'sqlite' | 'postgres';
  windows: number;
  documents: number;
  chunks: number;
  /** Chain time (retrieval, rerank, bridge-finding, gate), the reader's share taken out. */
  multihopMs: { p50: number; p95: number };
  /** Whole question, reader included. */
  withReaderMs: { p50: number; p95: number };
  decomposeMsPerQuestion: number;
  bm25MsPerQuestion: number;
  allSupportAt5: number;
  rssMb: number;
  /** PostgreSQL: windows per second written when the store was copied in (vectors as they are, no encoding), when it was. */
  copyWindowsPerS?: number;
}

interface BuildMarker {
  key: string;
  nextFiller: number;
  windows: number;
}

const round = (x: number) => +x.toFixed(1);
const msStats = (xs: number[]) => ({ p50: round(percentile(xs, 50)), p95: round(percentile(xs, 95)) });
const MARKER = 'scale.json';
/** Filler passages per ingest call: the progress bar and the windows count are updated in between. */
const FILLER_BATCH = 4000;

function readMarker(dir: string): BuildMarker | null {
  const f = path.join(dir, MARKER);
  return fs.existsSync(f) ? (JSON.parse(fs.readFileSync(f, 'utf8')) as BuildMarker) : null;
}

function corpusTitles(dataset: EvalDataset): Set<string> {
  const titles = new Set<string>();
  for (const input of dataset.inputs) {
    if (!input.endsWith('.jsonl') || !fs.existsSync(input)) continue;
    for (const line of fs.readFileSync(input, 'utf8').split('\n'))
      if (line.trim()) titles.add(String((JSON.parse(line) as { title?: string }).title ?? '').toLowerCase());
  }
  return titles;
}

/**
 * Grows the building store to at least `size` windows (the evaluation corpus first, then filler)
 * and snapshots it as `<root>/<size>`; a snapshot made by the same recipe is kept and reused.
 */
async function ensureStore(
  config: Config,
  dataset: EvalDataset,
  pool: readonly FillerPassage[],
  root: string,
  size: number,
  key: string,
  err: (s: string) => void,
): Promise<string> {
  const target = path.join(root, String(size));
  if (readMarker(target)?.key === key) return target;
  const building = path.join(root, 'building');
  if (readMarker(building)?.key !== key) fs.rmSync(building, { recursive: true, force: true });
  fs.mkdirSync(path.join(building, 'filler'), { recursive: true });
  const marker: BuildMarker = readMarker(building) ?? { key, nextFiller: 0, windows: 0 };
  const core = await openCore({ ...config, dataDir: building });
  try {
    const deps = { store: core.store, encoder: core.encoder, config, progress: progressBar() };
    if (marker.windows === 0) {
      err(`scale: ingesting ${dataset.name}\n`);
      await ingest(deps, dataset.inputs, { exclude: [path.join(dataset.dir, 'questions.jsonl')] });
    }
    let windows = (await core.store.documents.counts()).windows;
    while (windows < size) {
      // windows per filler passage so far (about 2.5 for Wikipedia paragraphs) sizes the next batch
      const perPassage = marker.nextFiller > 0 ? Math.max(0.5, (windows - marker.windows) / marker.nextFiller) : 2.5;
      // the first batch is a small probe, so the estimate is measured before it is relied on
      const want = Math.min(
        marker.nextFiller === 0 ? 500 : FILLER_BATCH,
        Math.max(50, Math.ceil((size - windows) / perPassage)),
      );
      const file = path.join(building, 'filler', `part-${String(marker.nextFiller).padStart(7, '0')}.jsonl`);
      writeFiller(file, pool, marker.nextFiller, marker.nextFiller + want);
      err(`scale: ${windows} of ${size} windows; adding ${want} filler passages\n`);
      await ingest(deps, [file]);
      if (marker.nextFiller === 0) marker.windows = windows;
      marker.nextFiller += want;
      windows = (await core.store.documents.counts()).windows;
      fs.writeFileSync(path.join(building, MARKER), JSON.stringify(marker));
    }
  } finally {
    await core.close();
  }
  fs.rmSync(target, { recursive: true, force: true });
  fs.cpSync(building, target, { recursive: true, filter: (src) => !src.includes(`${path.sep}filler`) });
  fs.writeFileSync(path.join(target, MARKER), JSON.stringify({ ...marker, windows: size }));
  return target;
}

/**
 * The same store in PostgreSQL: the SQLite snapshot copied into a schema of its own (vectors as
 * they are, so both backends hold exactly the same windows); kept while its counts match.
 */
async function ensurePgCopy(
  config: Config,
  sqliteDir: string,
  size: number,
  err: (s: string) => void,
): Promise<{ config: Config; copyWindowsPerS?: number }> {
  const pgConfig: Config = { ...config, databaseSchema: `ragask_scale_${size}` };
  const { manifest } = resolveModel(config.modelsDir, config.model, config.modelVariant);
  const model = {
    model: `${manifest.name}/${config.modelVariant}`,
    dimension: manifest.dimension ?? 384,
    hnsw: config.hnsw,
  };
  const from = await openStore({ dataDir: sqliteDir, databaseUrl: null, ...model });
  try {
    const to = await openStore({
      dataDir: sqliteDir,
      databaseUrl: config.databaseUrl,
      pgSchema: pgConfig.databaseSchema!,
      ...model,
    });
    try {
      const [a, b] = [await from.documents.counts(), await to.documents.counts()];
      if (a.windows === b.windows && a.documents === b.documents) return { config: pgConfig };
      err(`scale: copying ${a.windows} windows into PostgreSQL (schema ${pgConfig.databaseSchema})\n`);
      const r = await copyStore(from, to, progressBar());
      return { config: pgConfig, copyWindowsPerS: Math.round(r.windows / r.seconds) };
    } finally {
      await to.close();
    }
  } finally {
    await from.close();
  }
}

async function measure(config: Config, dataset: EvalDataset, backend: ScaleRow['backend']): Promise<ScaleRow> {
  const core = await openCore({ ...config, queryCacheTtlS: 0 });
  try {
    const counts = await core.store.documents.counts();
    for (const q of dataset.questions.slice(0, 3)) await core.engine.run(q.question, LOCAL);
    const chain: number[] = [];
    const whole: number[] = [];
    let decompose = 0;
    let bm25 = 0;
    let allSupport = 0;
    for (const q of dataset.questions) {
      const r = await core.engine.run(q.question, LOCAL);
      whole.push(r.timings.totalMs);
      chain.push(r.timings.totalMs - (r.timings.readMs ?? 0));
      for (const h of r.hops) {
        decompose += h.timings.decomposeMs;
        bm25 += h.timings.bm25Ms;
      }
      const top = new Set<string>();
      for (const s of r.evidence) {
        if (top.size >= 5) break;
        top.add(dataset.passageOf(s.citation.source));
      }
      if (q.supporting.every((p) => top.has(p))) allSupport++;
    }
    const n = Math.max(1, dataset.questions.length);
    return {
      backend,
      windows: counts.windows,
      documents: counts.documents,
      chunks: counts.chunks,
      multihopMs: msStats(chain),
      withReaderMs: msStats(whole),
      decomposeMsPerQuestion: round(decompose / n),
      bm25MsPerQuestion: round(bm25 / n),
      allSupportAt5: +(allSupport / n).toFixed(3),
      rssMb: Math.round(process.memoryUsage().rss / 2 ** 20),
    };
  } finally {
    await core.close();
  }
}

/**
 * `ragask bench --scale`: the same questions against stores of growing size (see eval/scale.ts).
 * With `keep`, the stores are kept there and reused by later runs of the same recipe. With
 * RAGASK_DATABASE_URL set, each size is measured on both backends in turn, in this one run: the
 * embedded store, then the same windows copied into PostgreSQL.
 */
export async function scaleBench(
  config: Config,
  dataset: EvalDataset,
  opts: { sizes: number[]; sharedDir: string; keep: string | null; err: (s: string) => void },
): Promise<ScaleRow[]> {
  const sqliteConfig: Config = { ...config, databaseUrl: null, databaseSchema: null };
  const pool = loadFillerPool(opts.sharedDir, corpusTitles(dataset));
  if (pool.length === 0)
    throw new UserError(
      `--scale needs filler passages from ${opts.sharedDir}/reader-*/reader.jsonl, and found none: point --shared at the shared datasets folder`,
    );
  const root = opts.keep ? path.resolve(opts.keep) : fs.mkdtempSync(path.join(os.tmpdir(), 'ragask-scale-'));
  const key = `recipe ${FILLER_RECIPE}, ingest ${INGEST_VERSION}, ${dataset.name}, ${config.modelVariant}, window ${config.windowTokens}/${config.windowOverlap}`;
  try {
    const rows: ScaleRow[] = [];
    for (const size of [...opts.sizes].sort((a, b) => a - b)) {
      const dir = await ensureStore(sqliteConfig, dataset, pool, root, size, key, opts.err);
      opts.err(`scale: measuring ${size} windows (SQLite)\n`);
      rows.push(await measure({ ...sqliteConfig, dataDir: dir }, dataset, 'sqlite'));
      if (config.databaseUrl) {
        const pg = await ensurePgCopy(config, dir, size, opts.err);
        opts.err(`scale: measuring ${size} windows (PostgreSQL)\n`);
        rows.push({
          ...(await measure({ ...pg.config, dataDir: dir }, dataset, 'postgres')),
          ...(pg.copyWindowsPerS ? { copyWindowsPerS: pg.copyWindowsPerS } : {}),
        });
      }
    }
    return rows;
  } finally {
    if (!opts.keep) fs.rmSync(root, { recursive: true, force: true });
  }
}

export function formatScale(rows: readonly ScaleRow[]): string {
  return [
    '| backend | windows (documents) | multihop p50 / p95 ms, without reader | with reader p50 / p95 ms | decompose ms / question | BM25 ms / question | all-support@5 | RSS MB |',
    '| --- | --- | --- | --- | --- | --- | --- | --- |',
    ...rows.map(
      (r) =>
        `| ${r.backend} | ${r.windows} (${r.documents}) | ${r.multihopMs.p50} / ${r.multihopMs.p95} | ${r.withReaderMs.p50} / ${r.withReaderMs.p95} | ${r.decomposeMsPerQuestion} | ${r.bm25MsPerQuestion} | ${r.allSupportAt5} | ${r.rssMb} |`,
    ),
  ].join('\n');
}
