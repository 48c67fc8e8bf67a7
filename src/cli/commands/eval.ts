import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Command } from 'commander';
import { UserError } from '../../errors.js';
import { loadDataset } from '../../eval/dataset.js';
import { multiHopRanker, singleHopRanker } from '../../eval/rankers.js';
import { HopEngine } from '../../engine/hops.js';
import { Decomposer } from '../../engine/decompose.js';
import { engineSettings } from '../../core.js';
import { formatReport, MODES, runEval, type EvalMode, type Ranker } from '../../eval/run.js';
import { ingest, INGEST_VERSION } from '../../ingest/ingest.js';
import type { CliContext } from '../program.js';
import { progressBar } from '../progress.js';
import { configFrom, parsePositiveInt, withCore } from './shared.js';

export function cacheRoot(): string {
  return process.env.RAGASK_CACHE_DIR ? path.resolve(process.env.RAGASK_CACHE_DIR) : path.join(process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache'), 'ragask');
}

function parseList<T extends string>(name: string, allowed: readonly T[]) {
  return (value: string): T[] => {
    const items = value.split(',').map((s) => s.trim()).filter(Boolean);
    for (const i of items) if (!allowed.includes(i as T)) throw new Error(`${name}: unknown "${i}" (allowed: ${allowed.join(', ')})`);
    return items as T[];
  };
}

function parseKs(value: string): number[] {
  const ks = value.split(',').map((s) => Number(s.trim()));
  if (ks.some((k) => !Number.isInteger(k) || k < 1 || k > 100)) throw new Error(`--k must be integers from 1 to 100, comma-separated (got ${JSON.stringify(value)})`);
  return [...new Set(ks)].sort((a, b) => a - b);
}

export function register(program: Command, ctx: CliContext): void {
  program
    .command('eval')
    .description('measure retrieval on a multi-hop QA dataset (corpus.jsonl + questions.jsonl, or a folder of documents + questions.jsonl)')
    .requiredOption('--dataset <dir>', 'dataset folder')
    .option('--modes <list>', `comma-separated: ${MODES.join(',')}`, parseList('--modes', MODES), [...MODES] as EvalMode[])
    .option('--k <list>', 'cut-offs, comma-separated', parseKs, [2, 5, 10])
    .option('--limit <n>', 'only the first n questions', parsePositiveInt('--limit', 1_000_000))
    .option('--json <file>', 'also write the report as JSON')
    .option('--store <dir>', 'where to keep the dataset store (default: a cache folder keyed by content)')
    .action(async (opts: { dataset: string; modes: EvalMode[]; k: number[]; limit?: number; json?: string; store?: string }, cmd: Command) => {
      const dataset = loadDataset(opts.dataset);
      const base = configFrom(ctx, cmd);
      const key = createHash('sha256')
        .update([dataset.contentHash, INGEST_VERSION, base.model, base.modelVariant, base.windowTokens, base.windowOverlap, base.chunkMaxTokens].join('|'))
        .digest('hex')
        .slice(0, 16);
      const storeDir = opts.store ? path.resolve(opts.store) : path.join(cacheRoot(), 'eval', `${dataset.name}-${key}`);
      fs.mkdirSync(storeDir, { recursive: true });
      const config = configFrom(ctx, cmd, { RAGASK_DATA_DIR: storeDir });
      await withCore(ctx, config, async (core) => {
        const counts = core.store.counts();
        const report = await ingest(
          { store: core.store, encoder: core.encoder, config, log: core.log, progress: progressBar() },
          dataset.inputs,
          { exclude: [path.join(dataset.dir, 'questions.jsonl')] },
        );
        if (report.added + report.updated > 0 || counts.documents === 0) {
          process.stderr.write(`ragask: dataset store ${storeDir}: ${report.added + report.updated} documents ingested in ${report.seconds.toFixed(1)} s\n`);
        }
        if (core.store.counts().documents === 0) throw new UserError(`${opts.dataset}: nothing could be ingested (${report.failed.length} failures)`);
        const rankers: Partial<Record<EvalMode, Ranker>> = {
          bm25: singleHopRanker(core.retriever, dataset, 'bm25'),
          dense: singleHopRanker(core.retriever, dataset, 'dense'),
          hybrid: singleHopRanker(core.retriever, dataset, 'hybrid'),
          // no query cache: every question is measured cold, as a first ask would be
          multihop: multiHopRanker(new HopEngine({ retriever: core.retriever, decomposer: new Decomposer({ store: core.store, mlm: core.mlm, windowsOfDoc: (id) => core.retriever.windowsOfDoc(id), windowsOfChunks: (ids) => core.retriever.windowVectors(ids) }), encoder: core.encoder, access: core.access, queryCache: null, log: core.log }, engineSettings(config)), dataset),
        };
        const result = await runEval(dataset, rankers, { modes: opts.modes, ks: opts.k, ...(opts.limit ? { limit: opts.limit } : {}), progress: progressBar() });
        ctx.out(formatReport(result, opts.k));
        if (opts.json) {
          fs.writeFileSync(opts.json, `${JSON.stringify(result, null, 2)}\n`);
          process.stderr.write(`ragask: wrote ${opts.json}\n`);
        }
      });
    });
}
