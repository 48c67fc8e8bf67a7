import { PUBLIC_SCOPE, scopeToJson, type Scope } from '../access.js';
import type { DocumentStore, DocumentWrite } from '../interfaces.js';
import { inTransaction, type PgClient } from './db.js';
import { CHUNK_SELECT, headingWords, toChunk, toDocument, type RawChunk } from '../rows.js';
import type { ChunkRow, DocumentRow } from '../types.js';
import type { PgContext } from './context.js';
import { float4ArrayBinary, vectorAt } from './vector-binary.js';
import { ftsWords } from './fts.js';
import { WRITE_POSTINGS } from './schema.js';

/**
 * A batch cut where a source comes again, so that each part holds a source once (a later version
 * of a document in the same batch replaces the earlier one, as it would in a later batch).
 */
function withDistinctSources(batch: readonly DocumentWrite[]): DocumentWrite[][] {
  const parts: DocumentWrite[][] = [[]];
  let seen = new Set<string>();
  for (const w of batch) {
    if (seen.has(w.doc.source)) {
      parts.push([]);
      seen = new Set();
    }
    seen.add(w.doc.source);
    parts[parts.length - 1]!.push(w);
  }
  return parts;
}

export class PgDocuments implements DocumentStore {
  constructor(private readonly ctx: PgContext) {}

  async getDocumentBySource(source: string): Promise<DocumentRow | undefined> {
    const r = await this.ctx.pool.query('SELECT * FROM documents WHERE source = $1', [source]);
    return r.rows[0] ? toDocument(r.rows[0] as Record<string, unknown>) : undefined;
  }

  async listDocuments(): Promise<DocumentRow[]> {
    return (await this.ctx.pool.query('SELECT * FROM documents ORDER BY source COLLATE "C"')).rows.map((r) =>
      toDocument(r as Record<string, unknown>),
    );
  }

  async sourcesUnder(prefix: string): Promise<{ id: number; source: string }[]> {
    return (
      await this.ctx.pool.query<{ id: number; source: string }>(
        'SELECT id, source FROM documents WHERE left(source, length($1)) = $1',
        [prefix],
      )
    ).rows;
  }

  /**
   * Writes whole documents in one transaction: each replaces any earlier version with its source
   * (under a lock on that source, so two ingests of one file from two machines write it in turn).
   */
  async replaceDocuments(batch: readonly DocumentWrite[], defaultScope: Scope = PUBLIC_SCOPE): Promise<number[]> {
    if (batch.length === 0) return [];
    const ids = await inTransaction(this.ctx.pool, async (c) => {
      const out: number[] = [];
      for (const part of withDistinctSources(batch)) out.push(...(await this.writeDocuments(c, part, defaultScope)));
      await this.ctx.bump(c, true);
      return out;
    });
    this.ctx.textCounts.clear();
    return ids;
  }

  /** Replaces each document's row (keeping its scope unless a new one comes) and returns their ids in batch order. */
  private async writeDocumentRows(
    c: PgClient,
    batch: readonly DocumentWrite[],
    defaultScope: Scope,
  ): Promise<number[]> {
    const sources = batch.map((w) => w.doc.source);
    // locks taken in one order by every writer, so two ingests of overlapping batches cannot deadlock
    await c.query(
      'SELECT pg_advisory_xact_lock(h) FROM (SELECT hashtext(s) AS h FROM unnest($1::text[]) s ORDER BY h) AS l',
      [sources.map((x) => `ragask-doc:${x}`)],
    );
    const old = new Map(
      (
        await c.query<{ source: string; scope: string }>(
          'DELETE FROM documents WHERE source = ANY($1::text[]) RETURNING source, scope',
          [sources],
        )
      ).rows.map((r) => [r.source, r.scope]),
    );
    // a new version of a document keeps the scope it was given, unless a scope comes with it
    const scopes = batch.map((w) =>
      w.doc.scope ? scopeToJson(w.doc.scope) : (old.get(w.doc.source) ?? scopeToJson(defaultScope)),
    );
    const now = new Date().toISOString();
    const docRows = await c.query<{ id: number; source: string }>(
      `INSERT INTO documents (source, path, title, kind, url, content_hash, bytes, ingested_at, scope)
       SELECT source, path, title, kind, url, content_hash, bytes, $8::text, scope
       FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::bigint[], $9::text[])
         WITH ORDINALITY AS t(source, path, title, kind, url, content_hash, bytes, scope, n)
       ORDER BY n
       RETURNING id, source`,
      [
        sources,
        batch.map((w) => w.doc.path),
        batch.map((w) => w.doc.title),
        batch.map((w) => w.doc.kind),
        batch.map((w) => w.doc.url),
        batch.map((w) => w.doc.contentHash),
        batch.map((w) => w.doc.bytes),
        now,
        scopes,
      ],
    );
    const docIdBySource = new Map(docRows.rows.map((r) => [r.source, Number(r.id)]));
    return sources.map((x) => docIdBySource.get(x)!);
  }

  /**
   * Documents of distinct sources, in six statements whatever their number: a round trip per
   * statement per document was most of a PostgreSQL ingest of many small documents (the encoder
   * holds the JavaScript thread, so each round trip waited for the next gap between its batches).
   * Ids are given in the batch's order, and a document's chunks get consecutive ids in its order.
   */
  private async writeDocuments(c: PgClient, batch: readonly DocumentWrite[], defaultScope: Scope): Promise<number[]> {
    const docIds = await this.writeDocumentRows(c, batch, defaultScope);
    const chunks: ChunkWrite[] = batch.flatMap((w, i) => {
      const titleWords = ftsWords(w.doc.title);
      return w.chunks.map((x) => ({ docId: docIds[i]!, titleWords, x }));
    });
    if (chunks.length === 0) return docIds;
    const inserted = await insertChunks(c, chunks);
    await c.query(WRITE_POSTINGS, [docIds]);
    await this.insertWindows(c, chunks, inserted);
    return docIds;
  }

  /** The chunks' windows with their vectors, each under the id its chunk was given. */
  private async insertWindows(
    c: PgClient,
    chunks: readonly ChunkWrite[],
    inserted: readonly InsertedChunk[],
  ): Promise<void> {
    const chunkId = new Map(inserted.map((r) => [`${r.doc_id}:${r.ord}`, Number(r.id)]));
    const windows = chunks.flatMap((y) =>
      y.x.windows.map((w) => ({ docId: y.docId, chunkId: chunkId.get(`${y.docId}:${y.x.ord}`)!, w })),
    );
    if (windows.length > 0) {
      await c.query(
        `INSERT INTO windows (chunk_id, doc_id, ord, char_start, char_end, token_count, embedding)
         SELECT chunk_id, doc_id, ord, char_start, char_end, token_count, ${vectorAt('$7', '$8')}
         FROM unnest($1::bigint[], $2::bigint[], $3::int[], $4::int[], $5::int[], $6::int[]) WITH ORDINALITY AS t(chunk_id, doc_id, ord, char_start, char_end, token_count, n)
         ORDER BY n`,
        [
          windows.map((x) => x.chunkId),
          windows.map((x) => x.docId),
          windows.map((x) => x.w.ord),
          windows.map((x) => x.w.charStart),
          windows.map((x) => x.w.charEnd),
          windows.map((x) => x.w.tokenCount),
          float4ArrayBinary(
            windows.map((x) => x.w.vector),
            this.ctx.index.dimension,
          ),
          this.ctx.index.dimension,
        ],
      );
    }
  }

  async deleteDocument(docId: number): Promise<void> {
    await inTransaction(this.ctx.pool, async (c) => {
      await c.query('DELETE FROM documents WHERE id = $1', [docId]);
      await this.ctx.bump(c, true);
    });
    this.ctx.textCounts.clear();
  }

  async getChunks(ids: readonly number[]): Promise<Map<number, ChunkRow>> {
    const out = new Map<number, ChunkRow>();
    if (ids.length === 0) return out;
    for (const r of (
      await this.ctx.pool.query<RawChunk>({
        name: 'chunks',
        text: `${CHUNK_SELECT} WHERE c.id = ANY($1::bigint[])`,
        values: [[...ids]],
      })
    ).rows)
      out.set(r.id, toChunk(r));
    return out;
  }

  async chunksOfDocument(docId: number): Promise<ChunkRow[]> {
    return (
      await this.ctx.pool.query<RawChunk>(`${CHUNK_SELECT} WHERE c.doc_id = $1 ORDER BY c.ord`, [docId])
    ).rows.map(toChunk);
  }

  async chunkIdsOfDocument(docId: number): Promise<number[]> {
    return (
      await this.ctx.pool.query<{ id: number }>({
        name: 'chunk-ids-of-doc',
        text: 'SELECT id FROM chunks WHERE doc_id = $1 ORDER BY ord',
        values: [docId],
      })
    ).rows.map((r) => r.id);
  }

  async counts(): Promise<{ documents: number; chunks: number; windows: number }> {
    const r = (
      await this.ctx.pool.query<{ documents: number; chunks: number; windows: number }>(
        'SELECT (SELECT count(*) FROM documents)::bigint AS documents, (SELECT count(*) FROM chunks)::bigint AS chunks, (SELECT count(*) FROM windows)::bigint AS windows',
      )
    ).rows[0]!;
    return { documents: r.documents, chunks: r.chunks, windows: r.windows };
  }
}

type ChunkWrite = { docId: number; titleWords: string; x: DocumentWrite['chunks'][number] };
type InsertedChunk = { id: number; doc_id: number; ord: number };

/** The chunks, with their full-text fields computed in SQL; returns each one's id, document and order. */
async function insertChunks(c: PgClient, chunks: readonly ChunkWrite[]): Promise<InsertedChunk[]> {
  const inserted = await c.query<InsertedChunk>(
    `INSERT INTO chunks (doc_id, ord, kind, heading_path, page, text, token_count, density, entities, entry, anchor, fts, fts_len, labels)
       SELECT doc_id, ord, kind, heading_path, page, text, token_count, density, entities, entry, anchor, v.fts, ragask_token_count(v.fts), ragask_labels(title, headings)
       FROM unnest($1::bigint[], $2::text[], $3::int[], $4::text[], $5::text[], $6::text[], $7::int[], $8::text[], $9::int[], $10::real[], $11::text[], $12::text[], $13::text[], $14::text[])
         WITH ORDINALITY AS t(doc_id, title, ord, kind, heading_path, headings, page, text, token_count, density, entities, body, entry, anchor, n),
       LATERAL (SELECT ragask_fts(title, headings, body) AS fts) v
       ORDER BY n
       RETURNING id, doc_id, ord`,
    [
      chunks.map((y) => y.docId),
      chunks.map((y) => y.titleWords),
      chunks.map((y) => y.x.ord),
      chunks.map((y) => y.x.kind),
      chunks.map((y) => JSON.stringify(y.x.headingPath)),
      chunks.map((y) => ftsWords(headingWords(y.x))),
      chunks.map((y) => y.x.page),
      chunks.map((y) => y.x.text),
      chunks.map((y) => y.x.tokenCount),
      chunks.map((y) => y.x.density),
      chunks.map((y) => JSON.stringify(y.x.entities)),
      chunks.map((y) => ftsWords(y.x.text)),
      chunks.map((y) => (y.x.entry ? JSON.stringify(y.x.entry) : null)),
      chunks.map((y) => y.x.anchor ?? null),
    ],
  );
  return inserted.rows;
}
