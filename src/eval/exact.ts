import type { ProgressReporter } from '../progress.js';

/**
 * Exact nearest neighbours by inner product (the vectors are unit length, so cosine), for measuring
 * an approximate index against: every query against every vector. The vectors are walked once in
 * blocks, each block against every query, so a block stays in cache while the queries pass over it;
 * a query's best k are kept sorted, and a score under its k-th is dropped at one comparison.
 * A million windows against a thousand queries is minutes of one core, not hours.
 */
export function exactNeighbours(
  vectors: readonly { id: number; vector: Float32Array }[],
  queries: readonly Float32Array[],
  k: number,
  progress?: ProgressReporter,
): number[][] {
  const dim = queries[0]?.length ?? 0;
  const q = new Float32Array(queries.length * dim);
  for (const [i, v] of queries.entries()) q.set(v, i * dim);
  const bestIds = queries.map(() => new Array<number>(k).fill(-1));
  const bestScores = queries.map(() => new Float64Array(k).fill(-Infinity));
  const BLOCK = 4096;
  progress?.start(vectors.length, 'exact search');
  for (let from = 0; from < vectors.length; from += BLOCK) {
    const block = vectors.slice(from, from + BLOCK);
    for (let qi = 0; qi < queries.length; qi++) {
      const ids = bestIds[qi]!;
      const scores = bestScores[qi]!;
      const base = qi * dim;
      for (const w of block) {
        const x = w.vector;
        let d = 0;
        for (let i = 0; i < dim; i++) d += x[i]! * q[base + i]!;
        if (d <= scores[k - 1]!) continue;
        // insert into the sorted best k
        let j = k - 1;
        while (j > 0 && scores[j - 1]! < d) {
          scores[j] = scores[j - 1]!;
          ids[j] = ids[j - 1]!;
          j--;
        }
        scores[j] = d;
        ids[j] = w.id;
      }
    }
    progress?.update(Math.min(vectors.length, from + BLOCK));
  }
  progress?.stop();
  return bestIds.map((ids) => ids.filter((id) => id >= 0));
}
