import type { Store } from '../store/interfaces.js';
import type { Encoder } from '../models/encoder.js';
import type { ProgressReporter } from '../progress.js';
import { windowEmbeddingText } from './windows.js';

/**
 * Re-embeds every window with `encoder` (after a model or variant change), in batches, each batch in
 * its own transaction; then records the new model and rebuilds the HNSW index. An interrupted run is
 * finished by running it again (windows are re-embedded from their stored text).
 */
export async function reembedAll(store: Store, encoder: Encoder, progress?: ProgressReporter): Promise<number> {
  const rows = await store.vectors.windowTexts();
  // until the last window is done the store holds two models' vectors: refuse to open it meanwhile
  await store.vectors.beginReembedding(encoder.id);
  progress?.start(rows.length, 'reindex');
  const BATCH = 256;
  for (let i = 0; i < rows.length; i += BATCH) {
    const batch = rows.slice(i, i + BATCH);
    const vectors = await encoder.encode(batch.map((r) => windowEmbeddingText(r.title, r.headingPath, r.text)));
    await store.vectors.setVectors(batch.map((r, j) => ({ id: r.id, vector: vectors[j]! })));
    progress?.update(Math.min(rows.length, i + BATCH));
  }
  await store.vectors.finishReembedding(encoder.id, encoder.dimension);
  progress?.stop();
  return rows.length;
}
