import type { WindowRow } from '../types.js';
import type { VectorStore } from '../interfaces.js';
import { blobToVector, vectorToBlob } from './vectors.js';
import type { SqliteContext } from './context.js';
import { setMeta } from './schema.js';

export class SqliteVectors implements VectorStore {
  constructor(private readonly ctx: SqliteContext) {}

  /** Window id → chunk id for the given windows (dropping any no longer in SQLite). */
  async windowChunks(windowIds: readonly number[]): Promise<Map<number, number>> {
    const out = new Map<number, number>();
    if (windowIds.length === 0) return out;
    const rows = this.ctx
      .sql('SELECT id, chunk_id FROM windows WHERE id IN (SELECT value FROM json_each(?))')
      .all(JSON.stringify(windowIds)) as { id: number; chunk_id: number }[];
    for (const r of rows) out.set(r.id, r.chunk_id);
    return out;
  }

  async windowsOfChunks(chunkIds: readonly number[]): Promise<WindowRow[]> {
    if (chunkIds.length === 0) return [];
    const rows = this.ctx.db
      .prepare(
        'SELECT id, chunk_id, ord, char_start, char_end, token_count, vector FROM windows WHERE chunk_id IN (SELECT value FROM json_each(?)) ORDER BY chunk_id, ord',
      )
      .all(JSON.stringify(chunkIds)) as {
      id: number;
      chunk_id: number;
      ord: number;
      char_start: number;
      char_end: number;
      token_count: number;
      vector: Buffer;
    }[];
    return rows.map((r) => ({
      id: r.id,
      chunkId: r.chunk_id,
      ord: r.ord,
      charStart: r.char_start,
      charEnd: r.char_end,
      tokenCount: r.token_count,
      vector: blobToVector(r.vector),
    }));
  }

  /** Every window's own text with its document title and headings, in id order (for re-embedding). */
  async windowTexts(last?: number): Promise<{ id: number; title: string; headingPath: string[]; text: string }[]> {
    // window offsets are JavaScript (UTF-16) offsets: the text is cut here, not by SQLite's substr
    const from = last === undefined ? 'windows' : '(SELECT * FROM windows ORDER BY id DESC LIMIT ?)';
    const rows = this.ctx.db
      .prepare(
        `SELECT w.id, w.char_start, w.char_end, c.text AS chunk, d.title, c.heading_path
         FROM ${from} w JOIN chunks c ON c.id = w.chunk_id JOIN documents d ON d.id = c.doc_id ORDER BY w.id`,
      )
      .all(...(last === undefined ? [] : [last])) as {
      id: number;
      char_start: number;
      char_end: number;
      chunk: string;
      title: string;
      heading_path: string;
    }[];
    return rows.map((r) => ({
      id: r.id,
      title: r.title,
      headingPath: JSON.parse(r.heading_path) as string[],
      text: r.chunk.slice(r.char_start, r.char_end),
    }));
  }

  /** Every window's id and vector (exact search, for measuring the HNSW index's recall). */
  async allWindowVectors(): Promise<{ id: number; vector: Float32Array }[]> {
    return (this.ctx.sql('SELECT id, vector FROM windows').all() as { id: number; vector: Buffer }[]).map((w) => ({
      id: w.id,
      vector: blobToVector(w.vector),
    }));
  }

  /** Chunks of at least `minTokens` tokens, with how many windows each has (the reranker's training pairs). */
  async chunksWithWindowCounts(minTokens: number): Promise<{ id: number; text: string; windows: number }[]> {
    return this.ctx.db
      .prepare(
        'SELECT c.id, c.text, (SELECT count(*) FROM windows w WHERE w.chunk_id = c.id) AS windows FROM chunks c WHERE c.token_count >= ?',
      )
      .all(minTokens) as {
      id: number;
      text: string;
      windows: number;
    }[];
  }

  /**
   * Re-embedding with another model: `begin` marks the store as holding two models' vectors (it
   * refuses to open meanwhile), `setVectors` replaces a batch in one transaction, and `finish`
   * records the model, drops cached retrievals and rebuilds the index from the new vectors.
   */
  async beginReembedding(model: string): Promise<void> {
    setMeta(this.ctx.db, 'reindexing', model);
  }

  async setVectors(batch: readonly { id: number; vector: Float32Array }[]): Promise<void> {
    const update = this.ctx.sql('UPDATE windows SET vector = ? WHERE id = ?');
    this.ctx.db.transaction(() => {
      for (const w of batch) update.run(vectorToBlob(w.vector), w.id);
    })();
  }

  async finishReembedding(model: string, dimension: number): Promise<void> {
    this.ctx.db.transaction(() => {
      setMeta(this.ctx.db, 'embedding_model', model);
      setMeta(this.ctx.db, 'embedding_dimension', String(dimension));
      this.ctx.sql("DELETE FROM meta WHERE key = 'reindexing'").run();
    })();
    this.ctx.sql('DELETE FROM query_cache').run();
    await this.ctx.index.rebuild();
    await this.ctx.index.save();
  }

  /** hnswlib inserts in the process as fast as it builds: nothing to set aside. */
  async beginBulkLoad(): Promise<boolean> {
    return false;
  }

  async finishBulkLoad(): Promise<void> {}
}
