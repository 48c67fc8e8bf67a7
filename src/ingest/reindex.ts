import { setMeta } from '../store/db.js';
import type { Store } from '../store/store.js';
import { vectorToBlob } from '../store/vectors.js';
import type { Encoder } from '../models/encoder.js';
import type { ProgressReporter } from './ingest.js';
import { windowEmbeddingText } from './windows.js';

/**
 * Re-embeds every window with `encoder` (after a model or variant change), in batches, each batch in
 * its own transaction; then records the new model and rebuilds the HNSW index. An interrupted run is
 * finished by running it again (windows are re-embedded from their stored text).
 */
export async function reembedAll(store: Store, encoder: Encoder, progress?: ProgressReporter): Promise<number> {
  // window offsets are JavaScript (UTF-16) offsets: the text is cut here, not by SQLite's substr
  const rows = (
    store.db
      .prepare(
        `SELECT w.id, w.char_start, w.char_end, c.text AS chunk, d.title, c.heading_path
         FROM windows w JOIN chunks c ON c.id = w.chunk_id JOIN documents d ON d.id = c.doc_id ORDER BY w.id`,
      )
      .all() as { id: number; char_start: number; char_end: number; chunk: string; title: string; heading_path: string }[]
  ).map((r) => ({ id: r.id, title: r.title, heading_path: r.heading_path, text: r.chunk.slice(r.char_start, r.char_end) }));
  // until the last window is done the store holds two models' vectors: refuse to open it meanwhile
  setMeta(store.db, 'reindexing', encoder.id);
  progress?.start(rows.length, 'reindex');
  const update = store.db.prepare('UPDATE windows SET vector = ? WHERE id = ?');
  const BATCH = 256;
  for (let i = 0; i < rows.length; i += BATCH) {
    const batch = rows.slice(i, i + BATCH);
    const vectors = await encoder.encode(batch.map((r) => windowEmbeddingText(r.title, JSON.parse(r.heading_path) as string[], r.text)));
    store.db.transaction(() => batch.forEach((r, j) => update.run(vectorToBlob(vectors[j]!), r.id)))();
    progress?.update(Math.min(rows.length, i + BATCH));
  }
  store.db.transaction(() => {
    setMeta(store.db, 'embedding_model', encoder.id);
    setMeta(store.db, 'embedding_dimension', String(encoder.dimension));
    store.db.prepare("DELETE FROM meta WHERE key = 'reindexing'").run();
  })();
  store.db.prepare('DELETE FROM query_cache').run();
  store.index.rebuild();
  store.index.save();
  progress?.stop();
  return rows.length;
}
