import { UserError } from '../../errors.js';
import type { VectorStore } from '../interfaces.js';
import { inTransaction } from './db.js';
import type { WindowRow } from '../types.js';
import type { PgContext } from './context.js';
import { float4ArrayBinary, vectorAt, vectorFromBinary } from './vector-binary.js';
import { ensureVectorIndex } from './schema.js';

export class PgVectors implements VectorStore {
  constructor(private readonly ctx: PgContext) {}

  async windowChunks(windowIds: readonly number[]): Promise<Map<number, number>> {
    const out = new Map<number, number>();
    if (windowIds.length === 0) return out;
    for (const r of (
      await this.ctx.pool.query<{ id: number; chunk_id: number }>({
        name: 'window-chunks',
        text: 'SELECT id, chunk_id FROM windows WHERE id = ANY($1::bigint[])',
        values: [[...windowIds]],
      })
    ).rows)
      out.set(r.id, r.chunk_id);
    return out;
  }

  async windowsOfChunks(chunkIds: readonly number[]): Promise<WindowRow[]> {
    if (chunkIds.length === 0) return [];
    const rows = await this.ctx.pool.query<{
      id: number;
      chunk_id: number;
      ord: number;
      char_start: number;
      char_end: number;
      token_count: number;
      embedding: Buffer;
    }>({
      name: 'windows-of-chunks',
      text: 'SELECT id, chunk_id, ord, char_start, char_end, token_count, vector_send(embedding) AS embedding FROM windows WHERE chunk_id = ANY($1::bigint[]) ORDER BY chunk_id, ord',
      values: [[...chunkIds]],
    });
    return rows.rows.map((r) => ({
      id: r.id,
      chunkId: r.chunk_id,
      ord: r.ord,
      charStart: r.char_start,
      charEnd: r.char_end,
      tokenCount: r.token_count,
      vector: vectorFromBinary(r.embedding),
    }));
  }

  async windowTexts(last?: number): Promise<{ id: number; title: string; headingPath: string[]; text: string }[]> {
    const from = last === undefined ? 'windows' : '(SELECT * FROM windows ORDER BY id DESC LIMIT $1)';
    const rows = await this.ctx.pool.query<{
      id: number;
      char_start: number;
      char_end: number;
      chunk: string;
      title: string;
      heading_path: string;
    }>(
      `SELECT w.id, w.char_start, w.char_end, c.text AS chunk, d.title, c.heading_path FROM ${from} w JOIN chunks c ON c.id = w.chunk_id JOIN documents d ON d.id = c.doc_id ORDER BY w.id`,
      last === undefined ? [] : [last],
    );
    // window offsets are JavaScript (UTF-16) offsets: the text is cut here, not in SQL
    return rows.rows.map((r) => ({
      id: r.id,
      title: r.title,
      headingPath: JSON.parse(r.heading_path) as string[],
      text: r.chunk.slice(r.char_start, r.char_end),
    }));
  }

  async allWindowVectors(): Promise<{ id: number; vector: Float32Array }[]> {
    const rows = await this.ctx.pool.query<{ id: number; embedding: Buffer }>(
      'SELECT id, vector_send(embedding) AS embedding FROM windows',
    );
    return rows.rows.map((r) => ({ id: r.id, vector: vectorFromBinary(r.embedding) }));
  }

  async chunksWithWindowCounts(minTokens: number): Promise<{ id: number; text: string; windows: number }[]> {
    return (
      await this.ctx.pool.query<{ id: number; text: string; windows: number }>(
        'SELECT c.id, c.text, (SELECT count(*) FROM windows w WHERE w.chunk_id = c.id)::bigint AS windows FROM chunks c WHERE c.token_count >= $1 ORDER BY c.id',
        [minTokens],
      )
    ).rows;
  }

  async beginReembedding(model: string): Promise<void> {
    await this.ctx.setMeta('reindexing', model);
  }

  async setVectors(batch: readonly { id: number; vector: Float32Array }[]): Promise<void> {
    await inTransaction(this.ctx.pool, async (c) => {
      await c.query(
        `UPDATE windows SET embedding = ${vectorAt('$2', '$3')}
         FROM unnest($1::bigint[]) WITH ORDINALITY AS t(id, n) WHERE windows.id = t.id`,
        [
          batch.map((w) => w.id),
          float4ArrayBinary(
            batch.map((w) => w.vector),
            this.ctx.index.dimension,
          ),
          this.ctx.index.dimension,
        ],
      );
      await this.ctx.bump(c, false);
    });
  }

  async finishReembedding(model: string, dimension: number): Promise<void> {
    if (dimension !== this.ctx.index.dimension)
      throw new UserError(
        `re-embedding into ${dimension} dimensions needs a new database (this one holds ${this.ctx.index.dimension})`,
        'model_mismatch',
      );
    await inTransaction(this.ctx.pool, async (c) => {
      await this.ctx.setMeta('embedding_model', model, c);
      await this.ctx.setMeta('embedding_dimension', String(dimension), c);
      await c.query("DELETE FROM ragask_meta WHERE key = 'reindexing'");
      await c.query('DELETE FROM query_cache');
      await this.ctx.bump(c, false);
    });
  }

  /**
   * pgvector updates its HNSW graph on every inserted row (about 5 ms a row on 2 cores) and builds
   * one over rows already there about ten times faster: a first load into an empty store drops the
   * index and builds it when done. Queries in between search exactly (nothing was there to answer
   * from); a load that dies in between gets its index at the next open, by whichever process.
   */
  async beginBulkLoad(): Promise<boolean> {
    const { empty } = (
      await this.ctx.pool.query<{ empty: boolean }>('SELECT NOT EXISTS (SELECT 1 FROM windows) AS empty')
    ).rows[0]!;
    if (!empty) return false;
    await this.ctx.pool.query('DROP INDEX IF EXISTS windows_embedding');
    return true;
  }

  async finishBulkLoad(): Promise<void> {
    await ensureVectorIndex(this.ctx.pool, this.ctx.hnsw);
  }
}
