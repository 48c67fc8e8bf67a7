import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { normalize } from '../../src/models/encoder.js';
import { HeadScorer, contrastiveLoss, trainHead } from '../../src/engine/reranker-head.js';
import { cosineScorer } from '../../src/engine/rerank.js';
import { tempDir } from '../helpers.js';

// Pairs where the cosine is misleading: the positive is a fixed rotation of the query, and the
// rotation sends it far from the query. A head over [q, d, q⊙d] can learn what the cosine cannot.
function pairs(n: number, seed: number) {
  let s = seed;
  const rand = () => {
    s = (s * 16807) % 2147483647;
    return (s / 2147483647) * 2 - 1;
  };
  const dim = 8;
  return Array.from({ length: n }, () => {
    const q = normalize(Float32Array.from({ length: dim }, rand));
    const d = normalize(Float32Array.from({ length: dim }, (_, i) => q[(i + 3) % dim]! * (i % 2 ? -1 : 1)));
    return { q, d };
  });
}

describe('the rerank head over the frozen encoder', () => {
  it('is exactly the cosine before training (w2 = 0)', () => {
    const w = trainHead(pairs(32, 1), 'm', { epochs: 0, hidden: 4 });
    const head = new HeadScorer(w);
    const [p] = pairs(1, 9);
    expect(head.score(p!.q, [p!.d])[0]).toBeCloseTo(cosineScorer.score(p!.q, [p!.d])[0]!, 6);
  });

  it("learns from in-batch negatives what the cosine misses (held-out loss drops below the cosine's)", () => {
    const train = pairs(512, 3);
    const held = pairs(128, 77);
    const w = trainHead(train, 'm', { epochs: 30, hidden: 16, batchSize: 32, learningRate: 3e-3 });
    const head = new HeadScorer(w);
    expect(contrastiveLoss(head, held)).toBeLessThan(contrastiveLoss(cosineScorer, held) * 0.8);
  });

  it('refuses a head trained for another model, naming the command', () => {
    const dir = tempDir();
    const file = path.join(dir, 'head.json');
    fs.writeFileSync(file, JSON.stringify(trainHead(pairs(16, 5), 'other/int8', { epochs: 1, hidden: 2 })));
    expect(() => HeadScorer.load(file, 'all-MiniLM-L6-v2/int8', 8)).toThrow(/ragask train-reranker/);
    expect(() => HeadScorer.load(path.join(dir, 'missing.json'), 'm', 8)).toThrow(/ragask train-reranker/);
    fs.rmSync(dir, { recursive: true, force: true });
  });
});
