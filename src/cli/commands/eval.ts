import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { InvalidArgumentError, type Command } from 'commander';
import { UserError } from '../../errors.js';
import { loadDataset, type EvalDataset } from '../../eval/dataset.js';
import { multiHopRanker, singleHopRanker } from '../../eval/rankers.js';
import { HopEngine } from '../../engine/hops.js';
import type { LinesObserver } from '../../engine/answer/index.js';
import type { SpansObserver } from '../../engine/answer/read.js';
import { Decomposer } from '../../engine/decompose.js';
import type { Retriever } from '../../engine/retrieve.js';
import { engineSettings, type Core } from '../../core.js';
import type { Config } from '../../config.js';
import { MODES, runEval, type EvalMode, type Ranker } from '../../eval/run.js';
import { ingest } from '../../ingest/ingest.js';
import { progressBar } from '../progress.js';
import { configFrom, parsePositiveInt, withCore } from './shared.js';
import type { CliContext } from '../context.js';
import { INGEST_VERSION } from '../../ingest/types.js';
import { formatReport } from '../../eval/format.js';

export function cacheRoot(): string {
  return process.env.RAGASK_CACHE_DIR
    ? path.resolve(process.env.RAGASK_CACHE_DIR)
    : path.join(process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache'), 'ragask');
}

function parseList<T extends string>(name: string, allowed: readonly T[]) {
  return (value: string): T[] => {
    const items = value
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
    for (const i of items)
      if (!allowed.includes(i as T))
        throw new InvalidArgumentError(`${name}: unknown "${i}" (allowed: ${allowed.join(', ')})`);
    return items as T[];
  };
}

function parseKs(value: string): number[] {
  const ks = value.split(',').map((s) => Number(s.trim()));
  if (ks.some((k) => !Number.isInteger(k) || k < 1 || k > 100))
    throw new InvalidArgumentError(
      `--k must be integers from 1 to 100, comma-separated (got ${JSON.stringify(value)})`,
    );
  return [...new Set(ks)].sort((a, b) => a - b);
}

/**
 * Opens the core on a dataset's own store (kept in the cache, keyed by the dataset's content and the
 * ingest settings), ingesting what is missing, and runs `fn` on it.
 */
export async function withDatasetCore<T>(
  ctx: CliContext,
  cmd: Command,
  dataset: EvalDataset,
  storeOpt: string | undefined,
  fn: (core: Core, config: Config) => Promise<T>,
): Promise<T> {
  const base = configFrom(ctx, cmd);
  const key = createHash('sha256')
    .update(
      [
        dataset.contentHash,
        INGEST_VERSION,
        base.model,
        base.modelVariant,
        base.windowTokens,
        base.windowOverlap,
        base.chunkMaxTokens,
      ].join('|'),
    )
    .digest('hex')
    .slice(0, 16);
  const storeDir = storeOpt ? path.resolve(storeOpt) : path.join(cacheRoot(), 'eval', `${dataset.name}-${key}`);
  const config = configFrom(ctx, cmd, { RAGASK_DATA_DIR: storeDir });
  // on PostgreSQL the dataset gets a schema of its own in the database, never the team's documents
  if (config.databaseUrl) config.databaseSchema = evalSchema(dataset.name, key);
  else fs.mkdirSync(storeDir, { recursive: true });
  const where = config.databaseUrl ? `schema ${config.databaseSchema}` : storeDir;
  return withCore(ctx, config, async (core) => {
    const counts = await core.store.documents.counts();
    const report = await ingest(
      { store: core.store, encoder: core.encoder, config, log: core.log, progress: progressBar() },
      dataset.inputs,
      { exclude: [path.join(dataset.dir, 'questions.jsonl')] },
    );
    if (report.added + report.updated > 0 || counts.documents === 0) {
      process.stderr.write(
        `ragask: dataset store ${where}: ${report.added + report.updated} documents ingested in ${report.seconds.toFixed(1)} s\n`,
      );
    }
    if ((await core.store.documents.counts()).documents === 0)
      throw new UserError(`${dataset.dir}: nothing could be ingested (${report.failed.length} failures)`);
    return fn(core, config);
  });
}

/** The PostgreSQL schema of a dataset's store: its name and content key, as an identifier. */
export function evalSchema(name: string, key: string): string {
  return `ragask_eval_${name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .slice(0, 30)}_${key.slice(0, 12)}`;
}

/**
 * The engine as eval runs it: no query cache, so every question is measured cold, as a first ask
 * would be. `retriever` replaces the core's (another rerank scorer, measured the same way).
 */
export function evalEngine(
  core: Core,
  config: Config,
  retriever: Retriever = core.retriever,
  observeLines?: LinesObserver,
  observeSpans?: SpansObserver,
): HopEngine {
  const decomposer = new Decomposer({
    store: core.store,
    mlm: core.mlm,
    windowsOfDoc: (id) => retriever.windowsOfDoc(id),
    windowsOfChunks: (ids) => retriever.windowVectors(ids),
  });
  return new HopEngine(
    {
      retriever,
      decomposer,
      encoder: core.encoder,
      reader: core.reader,
      access: core.access,
      queryCache: null,
      log: core.log,
      ...(observeLines ? { observeLines } : {}),
      ...(observeSpans ? { observeSpans } : {}),
    },
    engineSettings(config),
  );
}

export function register(program: Command, ctx: CliContext): void {
  program
    .command('eval')
    .description(
      'measure retrieval and answers on a multi-hop QA dataset (corpus.jsonl + questions.jsonl, or a folder of documents + questions.jsonl)',
    )
    .requiredOption('--dataset <dir>', 'dataset folder')
    .option('--modes <list>', `comma-separated: ${MODES.join(',')}`, parseList('--modes', MODES), [
      ...MODES,
    ] as EvalMode[])
    .option('--k <list>', 'cut-offs, comma-separated', parseKs, [2, 5, 10])
    .option('--limit <n>', 'only the first n questions', parsePositiveInt('--limit', 1_000_000))
    .option('--json <file>', "also write the report as JSON (with every question's answer)")
    .option('--store <dir>', 'where to keep the dataset store (default: a cache folder keyed by content)')
    .action(
      async (
        opts: { dataset: string; modes: EvalMode[]; k: number[]; limit?: number; json?: string; store?: string },
        cmd: Command,
      ) => {
        const dataset = loadDataset(opts.dataset);
        await withDatasetCore(ctx, cmd, dataset, opts.store, async (core, config) => {
          const rankers: Partial<Record<EvalMode, Ranker>> = {
            bm25: singleHopRanker(core.retriever, dataset, 'bm25'),
            dense: singleHopRanker(core.retriever, dataset, 'dense'),
            // hybrid also reads an answer off its single-hop evidence, to set the chain's answers against
            hybrid: singleHopRanker(core.retriever, dataset, 'hybrid', {
              reader: core.reader,
              chunksOf: (ids) => core.store.documents.getChunks(ids),
              passages: config.readerPassages,
            }),
            multihop: multiHopRanker(evalEngine(core, config), dataset),
          };
          const result = await runEval(dataset, rankers, {
            modes: opts.modes,
            ks: opts.k,
            ...(opts.limit ? { limit: opts.limit } : {}),
            progress: progressBar(),
            keepPerQuestion: !!opts.json,
          });
          ctx.out(formatReport(result, opts.k));
          result.reader = core.reader.name;
          if (opts.json) {
            fs.writeFileSync(opts.json, `${JSON.stringify(result, null, 2)}\n`);
            process.stderr.write(`ragask: wrote ${opts.json}\n`);
          }
        });
      },
    );
}
