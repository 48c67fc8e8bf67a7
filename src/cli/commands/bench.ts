import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { InvalidArgumentError, type Command } from 'commander';
import type { Config } from '../../config.js';
import { openCore } from '../../core.js';
import { loadDataset, type EvalDataset } from '../../eval/dataset.js';
import { percentile } from '../../eval/metrics.js';
import { singleHopRanker } from '../../eval/rankers.js';
import { runEval } from '../../eval/run.js';
import { ingest } from '../../ingest/ingest.js';
import { progressBar } from '../progress.js';
import { SAMPLE_DIR } from './demo.js';
import { formatIngest, ingestBench } from './bench-ingest.js';
import { formatScale, scaleBench } from './bench-scale.js';
import { hnswSweep, type HnswSweepRow } from './bench-hnsw.js';
import { configFrom } from './shared.js';
import { LOCAL } from '../../store/access.js';
import type { CliContext } from '../context.js';

const ms = (xs: number[]) => ({ p50: +percentile(xs, 50).toFixed(2), p95: +percentile(xs, 95).toFixed(2) });

interface VariantResult {
  variant: string;
  ingest: { documents: number; windows: number; seconds: number; windowsPerSecond: number };
  queryEncodeMs: { p50: number; p95: number };
  hnswSearchMs: { p50: number; p95: number };
  retrievalMs: { p50: number; p95: number };
  engineMs: { p50: number; p95: number };
  recall: Record<string, number>;
  /** HNSW recall@10 against exact search, and search time, per efSearch. */
  hnsw: HnswSweepRow[];
}

async function benchVariant(
  base: Config,
  variant: 'fp32' | 'int8',
  dataset: EvalDataset,
  dir: string,
): Promise<VariantResult> {
  const config: Config = { ...base, modelVariant: variant, dataDir: dir, queryCacheTtlS: 0 };
  const core = await openCore(config);
  try {
    const t0 = performance.now();
    const rep = await ingest(
      { store: core.store, encoder: core.encoder, config, progress: progressBar() },
      dataset.inputs,
      { exclude: [path.join(dataset.dir, 'questions.jsonl')] },
    );
    const seconds = (performance.now() - t0) / 1000;
    const questions = dataset.questions.map((q) => q.question);
    await core.encoder.encodeOne('warm up');
    const vectors: Float32Array[] = [];
    const enc = await timeEach(questions, async (q) => {
      vectors.push(await core.encoder.encodeOne(q));
    });
    const search = await timeEach(vectors, (v) => core.store.index.search(v, 100));
    const retrieval = await timeEach(questions, (q) => core.retriever.retrieve(q, { k: 20 }));
    const engine = await timeEach(questions, (q) => core.engine.run(q, LOCAL));
    const hnsw = await hnswSweep(core, vectors);
    const ev = await runEval(
      dataset,
      {
        dense: singleHopRanker(core.retriever, dataset, 'dense'),
        hybrid: singleHopRanker(core.retriever, dataset, 'hybrid'),
      },
      { modes: ['dense', 'hybrid'], ks: [5] },
    );
    return {
      variant,
      ingest: {
        documents: rep.added + rep.updated,
        windows: rep.windows,
        seconds: +seconds.toFixed(1),
        windowsPerSecond: +(rep.windows / Math.max(1e-9, seconds)).toFixed(1),
      },
      queryEncodeMs: ms(enc),
      hnswSearchMs: ms(search),
      retrievalMs: ms(retrieval),
      engineMs: ms(engine),
      hnsw,
      recall: {
        'dense recall@5': +(ev.modes.dense!['recall@5'] as number).toFixed(3),
        'hybrid recall@5': +(ev.modes.hybrid!['recall@5'] as number).toFixed(3),
        'hybrid all_support@5': +(ev.modes.hybrid!['all_support@5'] as number).toFixed(3),
      },
    };
  } finally {
    await core.close();
  }
}

/** Each item's time through `work`, in order, in ms. */
async function timeEach<T>(items: readonly T[], work: (item: T) => Promise<unknown>): Promise<number[]> {
  const times: number[] = [];
  for (const item of items) {
    const a = performance.now();
    await work(item);
    times.push(performance.now() - a);
  }
  return times;
}

const machineLine = (config: Config) =>
  `${os.cpus()[0]?.model ?? 'cpu'} × ${os.availableParallelism()} threads, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, ${process.platform} ${os.release()}, Node ${process.versions.node}, onnxruntime threads ${config.threads}`;

function parseCount(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 100_000)
    throw new InvalidArgumentError(
      `--recall-queries must be an integer from 0 to 100000 (got ${JSON.stringify(value)})`,
    );
  return n;
}

function parseSizes(value: string): number[] {
  const sizes = value.split(',').map((v) => Number(v.trim()));
  if (sizes.length === 0 || sizes.some((n) => !Number.isInteger(n) || n < 100 || n > 10_000_000))
    throw new InvalidArgumentError(
      `--sizes must be a comma-separated list of window counts from 100 to 10000000 (got ${JSON.stringify(value)})`,
    );
  return sizes;
}

async function ingestReport(ctx: CliContext, base: Config, dataset: EvalDataset, json?: string): Promise<void> {
  const rows = await ingestBench(base, dataset, (s) => process.stderr.write(s));
  ctx.out(`dataset ${dataset.name}; ${machineLine(base)}\n\n${formatIngest(rows)}`);
  if (json)
    fs.writeFileSync(
      json,
      `${JSON.stringify({ dataset: dataset.name, machine: machineLine(base), ingest: rows }, null, 2)}\n`,
    );
}

async function scaleReport(
  ctx: CliContext,
  base: Config,
  dataset: EvalDataset,
  opts: { sizes: number[]; shared: string; keep?: string; recallQueries: number; json?: string },
): Promise<void> {
  const rows = await scaleBench(base, dataset, {
    sizes: opts.sizes,
    sharedDir: opts.shared,
    keep: opts.keep ?? null,
    recallQueries: opts.recallQueries,
    err: (s) => process.stderr.write(s),
  });
  ctx.out(
    `dataset ${dataset.name} (${dataset.questions.length} questions) plus filler; ${machineLine(base)}\n\n${formatScale(rows)}`,
  );
  if (opts.json)
    fs.writeFileSync(
      opts.json,
      `${JSON.stringify({ dataset: dataset.name, machine: machineLine(base), rows }, null, 2)}\n`,
    );
}

export function register(program: Command, ctx: CliContext): void {
  program
    .command('bench')
    .description(
      'benchmark on this machine: ingest windows/s, query encode, HNSW search, retrieval, engine latency, peak RSS; fp32 vs int8',
    )
    .option('--dataset <dir>', 'corpus to measure on', path.resolve('..', 'shared', 'datasets', 'hotpotqa-train-100'))
    .option('--json <file>', 'also write the figures as JSON')
    .option(
      '--scale',
      'instead: the same questions against stores of growing size (Wikipedia-style filler), multihop latency, bridge-finding and BM25 cost, RSS',
    )
    .option(
      '--sizes <list>',
      'with --scale: store sizes in windows, comma-separated',
      parseSizes,
      [10_000, 50_000, 100_000],
    )
    .option(
      '--shared <dir>',
      'with --scale: the shared datasets folder whose reader-* sets give the filler',
      path.resolve('..', 'shared', 'datasets'),
    )
    .option('--keep <dir>', 'with --scale: keep the built stores in this folder and reuse them next time')
    .option(
      '--recall-queries <n>',
      'with --scale: questions the HNSW index is measured on against exact search (0: skip)',
      parseCount,
      1000,
    )
    .option('--ingest', "instead: ingest's windows/s against the encoder's alone on the same windows, and their ratio")
    .action(
      async (
        opts: {
          dataset: string;
          json?: string;
          scale?: boolean;
          ingest?: boolean;
          sizes: number[];
          shared: string;
          keep?: string;
          recallQueries: number;
        },
        cmd: Command,
      ) => {
        const base = configFrom(ctx, cmd);
        const datasetDir = fs.existsSync(opts.dataset) ? opts.dataset : SAMPLE_DIR;
        if (datasetDir !== opts.dataset)
          process.stderr.write(`ragask: ${opts.dataset} not found; benchmarking on the sample corpus instead\n`);
        const dataset = loadDataset(datasetDir);
        if (opts.ingest) return ingestReport(ctx, base, dataset, opts.json);
        if (opts.scale) return scaleReport(ctx, base, dataset, opts);
        await variantsBench(ctx, base, dataset, opts.json);
      },
    );
}

/** int8 against fp32, each on a fresh store: ingest, encode, search, retrieval, engine, recall, HNSW. */
async function variantsBench(
  ctx: CliContext,
  base: Config,
  dataset: EvalDataset,
  json: string | undefined,
): Promise<void> {
  const results: VariantResult[] = [];
  for (const variant of ['int8', 'fp32'] as const) {
    // a fresh store each time: ingest speed is measured from scratch
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), `ragask-bench-${variant}-`));
    try {
      results.push(await benchVariant(base, variant, dataset, dir));
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }
  const machine = machineLine(base);
  const peakRssMb = +(process.resourceUsage().maxRSS / 1024).toFixed(0);
  const report = { dataset: dataset.name, questions: dataset.questions.length, machine, peakRssMb, results };
  const row = (label: string, f: (r: VariantResult) => string) => `| ${label} | ${results.map(f).join(' | ')} |`;
  ctx.out(
    [
      `dataset ${dataset.name} (${dataset.questions.length} questions); ${machine}`,
      '',
      `| figure | ${results.map((r) => r.variant).join(' | ')} |`,
      `| --- | ${results.map(() => '---').join(' | ')} |`,
      row('ingest (documents, windows, s)', (r) => `${r.ingest.documents}, ${r.ingest.windows}, ${r.ingest.seconds}`),
      row('ingest windows/s', (r) => `${r.ingest.windowsPerSecond}`),
      row('query encode ms p50 / p95', (r) => `${r.queryEncodeMs.p50} / ${r.queryEncodeMs.p95}`),
      row('HNSW search (k=100) ms p50 / p95', (r) => `${r.hnswSearchMs.p50} / ${r.hnswSearchMs.p95}`),
      row('hybrid retrieval ms p50 / p95', (r) => `${r.retrievalMs.p50} / ${r.retrievalMs.p95}`),
      row('multi-hop engine ms p50 / p95', (r) => `${r.engineMs.p50} / ${r.engineMs.p95}`),
      ...Object.keys(results[0]!.recall).map((k) => row(k, (r) => `${r.recall[k]}`)),
      `| peak RSS (whole run) | ${peakRssMb} MB |`,
      '',
      `HNSW (M=${base.hnsw.m}, efConstruction=${base.hnsw.efConstruction}) recall@10 against exact search, int8 store:`,
      '',
      '| efSearch | recall@10 | search ms p50 / p95 |',
      '| --- | --- | --- |',
      ...results[0]!.hnsw.map((h) => `| ${h.efSearch} | ${h.recallAt10} | ${h.ms.p50} / ${h.ms.p95} |`),
    ].join('\n'),
  );
  if (json) fs.writeFileSync(json, `${JSON.stringify(report, null, 2)}\n`);
}
