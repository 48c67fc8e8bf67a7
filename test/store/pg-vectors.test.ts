import { describe, expect, it } from 'vitest';
import { filteredSearch } from '../../src/store/pg/health.js';
import { hasIterativeScan } from '../../src/store/pg/vectors.js';

describe("pgvector's filtered search", () => {
  it('uses iterative index scans from pgvector 0.8 on, and the exact fallback before', () => {
    for (const v of ['0.5.1', '0.6.2', '0.7.4']) expect(hasIterativeScan(v)).toBe(false);
    for (const v of ['0.8.0', '0.8.1', '0.10.0', '1.0.0']) expect(hasIterativeScan(v)).toBe(true);
    expect(hasIterativeScan(null)).toBe(false);
    expect(filteredSearch('0.6.2')).toMatch(/falls back to an exact search/);
    expect(filteredSearch('0.8.0')).toMatch(/iterative index scans \(/);
  });
});
