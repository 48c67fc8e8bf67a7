import type { Core } from '../../core.js';
import { exactNeighbours } from '../../eval/exact.js';
import { percentile } from '../../eval/metrics.js';
import type { ProgressReporter } from '../../progress.js';

/** The HNSW search efforts the benchmarks sweep (recall@10 against the exact neighbours, and time). */
const EF_SEARCH_SWEEP = [16, 32, 64, 128, 256];

export interface HnswSweepRow {
  efSearch: number;
  recallAt10: number;
  ms: { p50: number; p95: number };
}

const ms = (xs: number[]) => ({ p50: +percentile(xs, 50).toFixed(2), p95: +percentile(xs, 95).toFixed(2) });

/**
 * The store's own vector index against exact (brute-force) search over every window vector, per
 * efSearch: recall@10 over the queries and the search time. The configured efSearch is set back after.
 */
export async function hnswSweep(
  core: Pick<Core, 'store'>,
  queries: readonly Float32Array[],
  progress?: ProgressReporter,
): Promise<HnswSweepRow[]> {
  const exact = exactNeighbours(await core.store.vectors.allWindowVectors(), queries, 10, progress);
  const index = core.store.index;
  const configured = index.efSearch;
  const rows: HnswSweepRow[] = [];
  try {
    for (const efSearch of EF_SEARCH_SWEEP) {
      index.setEfSearch(efSearch);
      let hit = 0;
      const times: number[] = [];
      for (const [i, v] of queries.entries()) {
        const a = performance.now();
        const got = (await index.search(v, 10)).map((h) => h.windowId);
        times.push(performance.now() - a);
        hit += got.filter((id) => exact[i]!.includes(id)).length;
      }
      rows.push({ efSearch, recallAt10: +(hit / (10 * Math.max(1, queries.length))).toFixed(4), ms: ms(times) });
    }
  } finally {
    index.setEfSearch(configured);
  }
  return rows;
}
