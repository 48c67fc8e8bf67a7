import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Config } from '../../config.js';
import { openCore, type Core } from '../../core.js';
import { resolveModel } from '../../models/registry.js';
import { copyStore } from '../../store/copy.js';
import { openStore } from '../../store/open.js';
import type { EvalDataset } from '../../eval/dataset.js';
import { percentile } from '../../eval/metrics.js';
import { FILLER_RECIPE, loadFillerPool, loadScaleQueries } from '../../eval/scale.js';
import { LOCAL, PUBLIC_SCOPE, parseScope, type AccessContext } from '../../store/access.js';
import { UserError } from '../../errors.js';
import { progressBar } from '../progress.js';
import { INGEST_VERSION } from '../../ingest/types.js';
import { ensureStore, readMarker } from './bench-scale-build.js';
import { hnswSweep, type HnswSweepRow } from './bench-hnsw.js';
import { startToFirstAnswer, type RestartFigures } from './bench-restart.js';

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
  /** The same questions stopped after their first hop (max hops 1), reader included: what a one-hop answer costs. */
  oneHopMs: { p50: number; p95: number };
  /** The same questions, reader included, asked in a Slack channel that may not see one filler document in 50. */
  channelMs: { p50: number; p95: number };
  /** The index against exact search on the recall queries, per efSearch (SQLite; its own index). */
  hnsw?: HnswSweepRow[];
  /** A fresh process from start to its first answer, and its peak memory (SQLite). */
  restart?: RestartFigures;
  /** Filler windows/s over the build's whole batches, the encoder alone on the newest windows, and their ratio. */
  ingest?: { windowsPerS: number; rawEncodeWindowsPerS: number; ratio: number };
}

const round = (x: number) => +x.toFixed(1);
const msStats = (xs: number[]) => ({ p50: round(percentile(xs, 50)), p95: round(percentile(xs, 95)) });

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

/** Each question's whole time, the chain's share, bridge-finding and BM25 time, and all-support@5. */
async function askAll(core: Core, dataset: EvalDataset) {
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
    multihopMs: msStats(chain),
    withReaderMs: msStats(whole),
    decomposeMsPerQuestion: round(decompose / n),
    bm25MsPerQuestion: round(bm25 / n),
    allSupportAt5: +(allSupport / n).toFixed(3),
  };
}

/** Where the channel row asks from, and the channel one filler document in 50 is scoped to for it. */
const ASKING_CHANNEL: AccessContext = { kind: 'slack', channel: 'CBENCHASK', user: 'UBENCH', isDM: false };
const PRIVATE_CHANNEL = 'channel:CBENCHPRIVATE';
const PRIVATE_SHARE = 50;

/**
 * The questions asked from a Slack channel that may not see every document, as in a workspace with
 * private documents: one filler document in 50 is scoped to another channel for the run, then made
 * public again (the answers' documents stay visible, so only the filtering's cost differs from the
 * operator's rows).
 */
async function askAsChannel(core: Core, dataset: EvalDataset): Promise<ScaleRow['channelMs']> {
  const fillers = (await core.store.documents.listDocuments()).filter((d) => d.source.includes('#filler-'));
  const scoped = fillers.filter((_, i) => i % PRIVATE_SHARE === 0).map((d) => d.id);
  await core.store.access.setScope(scoped, parseScope(PRIVATE_CHANNEL));
  try {
    const ms: number[] = [];
    for (const q of dataset.questions) ms.push((await core.engine.run(q.question, ASKING_CHANNEL)).timings.totalMs);
    return msStats(ms);
  } finally {
    await core.store.access.setScope(scoped, PUBLIC_SCOPE);
  }
}

async function measure(
  config: Config,
  dataset: EvalDataset,
  backend: ScaleRow['backend'],
  recallQueries: readonly string[],
): Promise<ScaleRow> {
  const core = await openCore({ ...config, queryCacheTtlS: 0 });
  try {
    const counts = await core.store.documents.counts();
    for (const q of dataset.questions.slice(0, 3)) await core.engine.run(q.question, LOCAL);
    const asked = await askAll(core, dataset);
    const oneHop: number[] = [];
    for (const q of dataset.questions)
      oneHop.push((await core.engine.run(q.question, LOCAL, { maxHops: 1 })).timings.totalMs);
    const channelMs = await askAsChannel(core, dataset);
    // memory as answering leaves it, before the exact search loads every vector
    const rssMb = Math.round(process.memoryUsage().rss / 2 ** 20);
    const vectors: Float32Array[] = [];
    for (const q of recallQueries) vectors.push(await core.encoder.encodeOne(q));
    const hnsw = backend === 'sqlite' && vectors.length ? await hnswSweep(core, vectors, progressBar()) : undefined;
    return {
      backend,
      windows: counts.windows,
      documents: counts.documents,
      chunks: counts.chunks,
      ...asked,
      oneHopMs: msStats(oneHop),
      channelMs,
      rssMb,
      ...(hnsw ? { hnsw } : {}),
    };
  } finally {
    await core.close();
  }
}

/** Filler windows/s over the build's batches against the encoder alone, from the store's build marker. */
function ingestFigures(dir: string): ScaleRow['ingest'] {
  const m = readMarker(dir);
  if (!m?.fillerSeconds || !m.fillerWindows || !m.rawEncodeWindowsPerS) return undefined;
  const windowsPerS = +(m.fillerWindows / m.fillerSeconds).toFixed(1);
  return {
    windowsPerS,
    rawEncodeWindowsPerS: m.rawEncodeWindowsPerS,
    ratio: +(windowsPerS / m.rawEncodeWindowsPerS).toFixed(3),
  };
}

/** One size on the embedded store: the questions, the index against exact search, a fresh start, the build's rate. */
async function measureSqlite(
  config: Config,
  dataset: EvalDataset,
  dir: string,
  recallQueries: readonly string[],
): Promise<ScaleRow> {
  const row = await measure({ ...config, dataDir: dir }, dataset, 'sqlite', recallQueries);
  const restart = startToFirstAnswer(dir, dataset.questions[0]?.question ?? 'what is this about?');
  const ingest = ingestFigures(dir);
  return { ...row, restart, ...(ingest ? { ingest } : {}) };
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
  opts: { sizes: number[]; sharedDir: string; keep: string | null; recallQueries: number; err: (s: string) => void },
): Promise<ScaleRow[]> {
  const sqliteConfig: Config = { ...config, databaseUrl: null, databaseSchema: null };
  const pool = loadFillerPool(opts.sharedDir, corpusTitles(dataset));
  if (pool.length === 0)
    throw new UserError(
      `--scale needs filler passages from ${opts.sharedDir}/reader-*/reader.jsonl, and found none: point --shared at the shared datasets folder`,
    );
  const recallQueries = loadScaleQueries(opts.sharedDir, opts.recallQueries);
  const root = opts.keep ? path.resolve(opts.keep) : fs.mkdtempSync(path.join(os.tmpdir(), 'ragask-scale-'));
  const key = `recipe ${FILLER_RECIPE}, ingest ${INGEST_VERSION}, ${dataset.name}, ${config.modelVariant}, window ${config.windowTokens}/${config.windowOverlap}`;
  try {
    const rows: ScaleRow[] = [];
    for (const size of [...opts.sizes].sort((a, b) => a - b)) {
      const dir = await ensureStore(sqliteConfig, dataset, pool, { root, size, key, err: opts.err });
      opts.err(`scale: measuring ${size} windows (SQLite)\n`);
      rows.push(await measureSqlite(sqliteConfig, dataset, dir, recallQueries));
      // each size's figures as they come: a run of hours that dies later keeps what it measured
      opts.err(`scale: ${JSON.stringify(rows.at(-1))}\n`);
      if (config.databaseUrl) {
        const pg = await ensurePgCopy(config, dir, size, opts.err);
        opts.err(`scale: measuring ${size} windows (PostgreSQL)\n`);
        rows.push({
          ...(await measure({ ...pg.config, dataDir: dir }, dataset, 'postgres', [])),
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
  const lines = [
    '| backend | windows (documents) | multihop p50 / p95 ms, without reader | with reader p50 / p95 ms | one hop p50 / p95 ms | in a channel that may not see 1 in 50, p50 / p95 ms | decompose ms / question | BM25 ms / question | all-support@5 | RSS MB |',
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |',
    ...rows.map(
      (r) =>
        `| ${r.backend} | ${r.windows} (${r.documents}) | ${r.multihopMs.p50} / ${r.multihopMs.p95} | ${r.withReaderMs.p50} / ${r.withReaderMs.p95} | ${r.oneHopMs.p50} / ${r.oneHopMs.p95} | ${r.channelMs.p50} / ${r.channelMs.p95} | ${r.decomposeMsPerQuestion} | ${r.bm25MsPerQuestion} | ${r.allSupportAt5} | ${r.rssMb} |`,
    ),
  ];
  const sqlite = rows.filter((r) => r.backend === 'sqlite');
  lines.push(
    '',
    '| windows | start to first answer ms | its peak RSS MB | ingest windows/s | encoder alone windows/s | ratio | HNSW recall@10 at efSearch 16 / 32 / 64 / 128 / 256 |',
    '| --- | --- | --- | --- | --- | --- | --- |',
    ...sqlite.map(
      (r) =>
        `| ${r.windows} | ${r.restart?.ms ?? '-'} | ${r.restart?.peakRssMb ?? '-'} | ${r.ingest?.windowsPerS ?? '-'} | ${r.ingest?.rawEncodeWindowsPerS ?? '-'} | ${r.ingest?.ratio ?? '-'} | ${r.hnsw?.map((h) => h.recallAt10).join(' / ') ?? '-'} |`,
    ),
  );
  return lines.join('\n');
}
