import { describe, expect, it } from 'vitest';
import { exactNeighbours } from '../../src/eval/exact.js';

const v = (...xs: number[]) => Float32Array.from(xs);

describe('exact nearest neighbours (what the HNSW index is measured against)', () => {
  it('ranks every vector by inner product, best first, k of them', () => {
    const vectors = [
      { id: 10, vector: v(1, 0, 0) },
      { id: 11, vector: v(0, 1, 0) },
      { id: 12, vector: v(0.6, 0.8, 0) },
      { id: 13, vector: v(0.8, 0.6, 0) },
      { id: 14, vector: v(0, 0, 1) },
    ];
    const got = exactNeighbours(vectors, [v(1, 0, 0), v(0, 0.6, 0.8)], 3);
    expect(got).toEqual([
      [10, 13, 12],
      [14, 11, 12],
    ]);
  });

  it('gives fewer than k where there are fewer vectors, across blocks of vectors', () => {
    expect(exactNeighbours([{ id: 1, vector: v(1, 0) }], [v(0, 1)], 10)).toEqual([[1]]);
    // more vectors than one block (4096): the best lies in the last block
    const many = Array.from({ length: 9000 }, (_, i) => ({ id: i, vector: v(1, i / 9000) }));
    expect(exactNeighbours(many, [v(0, 1)], 2)).toEqual([[8999, 8998]]);
  });
});
