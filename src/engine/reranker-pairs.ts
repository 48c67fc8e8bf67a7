import type { Encoder } from '../models/encoder.js';
import { sentencesOf } from '../models/nlp.js';
import type { Store } from '../store/interfaces.js';
import { rng } from './reranker-head.js';

export interface TrainingPair {
  q: Float32Array;
  d: Float32Array;
}

/** Deterministic shuffle (the training PRNG) so pair sampling is repeatable. */
function shuffled<T>(xs: T[], seed: number): T[] {
  const rand = rng(seed);
  const out = [...xs];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

/**
 * Self-supervised pairs from the indexed corpus, by the inverse cloze task: a sentence of a chunk
 * is the query, and the positive is the window of the same chunk that overlaps that sentence least
 * (so the sentence's own words are mostly not in it). No labels needed: the chunk's other text is
 * what a question about that sentence should find.
 */
export async function makeTrainingPairs(
  store: Store,
  encoder: Encoder,
  maxPairs: number,
  seed = 7,
  onProgress?: (done: number, total: number) => void,
): Promise<TrainingPair[]> {
  const rows = await store.vectors.chunksWithWindowCounts(30);
  const picked: { query: string; d: Float32Array }[] = [];
  for (const r of shuffled(rows, seed)) {
    if (picked.length >= maxPairs) break;
    const sentences = sentencesOf(r.text).filter((s) => s.text.split(/\s+/).length >= 5);
    if (sentences.length < 2) continue;
    const s = sentences[(r.id * 7919) % sentences.length]!;
    const windows = await store.vectors.windowsOfChunks([r.id]);
    let best: { overlap: number; vector: Float32Array } | null = null;
    for (const w of windows) {
      const overlap =
        Math.max(0, Math.min(w.charEnd, s.end) - Math.max(w.charStart, s.start)) / Math.max(1, s.end - s.start);
      if (!best || overlap < best.overlap) best = { overlap, vector: w.vector };
    }
    if (!best || best.overlap > 0.5) continue;
    picked.push({ query: s.text, d: best.vector });
  }
  const vectors = await encoder.encode(
    picked.map((p) => p.query),
    (done) => onProgress?.(done, picked.length),
  );
  return picked.map((p, i) => ({ q: vectors[i]!, d: p.d }));
}
