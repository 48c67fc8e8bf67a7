import { PUBLIC_SCOPE, scopeToJson, type Scope } from '../access.js';
import type { ChunkInput, ChunkRow, DocumentInput, DocumentRow } from '../types.js';
import type { DocumentStore, DocumentWrite } from '../interfaces.js';
import { vectorToBlob } from './vectors.js';
import { CHUNK_SELECT, headingWords, toChunk, toDocument, type RawChunk } from '../rows.js';
import type { SqliteContext } from './context.js';

export class SqliteDocuments implements DocumentStore {
  constructor(private readonly ctx: SqliteContext) {}

  async getDocumentBySource(source: string): Promise<DocumentRow | undefined> {
    const r = this.ctx.sql('SELECT * FROM documents WHERE source = ?').get(source) as
      Record<string, unknown> | undefined;
    return r ? toDocument(r) : undefined;
  }

  async listDocuments(): Promise<DocumentRow[]> {
    return (this.ctx.sql('SELECT * FROM documents ORDER BY source').all() as Record<string, unknown>[]).map((r) =>
      toDocument(r),
    );
  }

  /** Sources whose key starts with `prefix` (the records of one .jsonl file, or the files under a folder). */
  async sourcesUnder(prefix: string): Promise<{ id: number; source: string }[]> {
    return this.ctx
      .sql('SELECT id, source FROM documents WHERE substr(source, 1, length(?)) = ?')
      .all(prefix, prefix) as {
      id: number;
      source: string;
    }[];
  }

  /** Writes whole documents (each replacing any earlier version with the same source) in one transaction. */
  async replaceDocuments(batch: readonly DocumentWrite[], defaultScope: Scope = PUBLIC_SCOPE): Promise<number[]> {
    return this.ctx.db.transaction(() => batch.map((w) => this.replaceDocumentNow(w.doc, w.chunks, defaultScope)))();
  }

  private replaceDocumentNow(doc: DocumentInput, chunks: ChunkInput[], defaultScope: Scope): number {
    this.ctx.textCounts.clear();
    const tx = this.ctx.db.transaction(() => {
      const old = this.ctx.sql('SELECT id, scope FROM documents WHERE source = ?').get(doc.source) as
        { id: number; scope: string } | undefined;
      if (old) this.deleteDocumentNow(old.id);
      // a new version of a document keeps the scope it was given, unless a scope comes with it
      const scope = doc.scope ? scopeToJson(doc.scope) : (old?.scope ?? scopeToJson(defaultScope));
      const { lastInsertRowid } = this.ctx.db
        .prepare(
          'INSERT INTO documents (source, path, title, kind, url, content_hash, bytes, ingested_at, scope) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
        )
        .run(
          doc.source,
          doc.path,
          doc.title,
          doc.kind,
          doc.url,
          doc.contentHash,
          doc.bytes,
          new Date().toISOString(),
          scope,
        );
      this.ctx.bumpAccessVersion();
      const docId = Number(lastInsertRowid);
      const insChunk = this.ctx.sql(
        'INSERT INTO chunks (doc_id, ord, kind, heading_path, page, text, token_count, density, entities, entry, anchor) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
      );
      const insFts = this.ctx.sql('INSERT INTO chunks_fts (rowid, title, headings, body) VALUES (?, ?, ?, ?)');
      const insLabels = this.ctx.sql('INSERT INTO chunk_labels_fts (rowid, title, headings) VALUES (?, ?, ?)');
      const insWin = this.ctx.sql(
        'INSERT INTO windows (chunk_id, ord, char_start, char_end, token_count, vector) VALUES (?, ?, ?, ?, ?, ?)',
      );
      const insLog = this.ctx.sql("INSERT INTO index_log (window_id, op) VALUES (?, 'add')");
      for (const c of chunks) {
        const chunkId = Number(
          insChunk.run(
            docId,
            c.ord,
            c.kind,
            JSON.stringify(c.headingPath),
            c.page,
            c.text,
            c.tokenCount,
            c.density,
            JSON.stringify(c.entities),
            c.entry ? JSON.stringify(c.entry) : null,
            c.anchor ?? null,
          ).lastInsertRowid,
        );
        insFts.run(chunkId, doc.title, headingWords(c), c.text);
        insLabels.run(chunkId, doc.title, headingWords(c));
        for (const w of c.windows) {
          const wid = Number(
            insWin.run(chunkId, w.ord, w.charStart, w.charEnd, w.tokenCount, vectorToBlob(w.vector)).lastInsertRowid,
          );
          insLog.run(wid);
        }
      }
      return docId;
    });
    return tx();
  }

  async deleteDocument(docId: number): Promise<void> {
    this.ctx.db.transaction(() => {
      this.deleteDocumentNow(docId);
      this.ctx.bumpAccessVersion();
    })();
  }

  private deleteDocumentNow(docId: number): void {
    this.ctx.textCounts.clear();
    this.ctx
      .sql(
        "INSERT INTO index_log (window_id, op) SELECT w.id, 'del' FROM windows w JOIN chunks c ON c.id = w.chunk_id WHERE c.doc_id = ?",
      )
      .run(docId);
    this.ctx.sql('DELETE FROM chunks_fts WHERE rowid IN (SELECT id FROM chunks WHERE doc_id = ?)').run(docId);
    this.ctx.sql('DELETE FROM chunk_labels_fts WHERE rowid IN (SELECT id FROM chunks WHERE doc_id = ?)').run(docId);
    this.ctx.sql('DELETE FROM windows WHERE chunk_id IN (SELECT id FROM chunks WHERE doc_id = ?)').run(docId);
    this.ctx.sql('DELETE FROM chunks WHERE doc_id = ?').run(docId);
    this.ctx.sql('DELETE FROM documents WHERE id = ?').run(docId);
  }

  async getChunks(ids: readonly number[]): Promise<Map<number, ChunkRow>> {
    const out = new Map<number, ChunkRow>();
    if (ids.length === 0) return out;
    const stmt = this.ctx.sql(`${CHUNK_SELECT} WHERE c.id IN (SELECT value FROM json_each(?))`);
    for (const r of stmt.all(JSON.stringify(ids)) as RawChunk[]) out.set(r.id, toChunk(r));
    return out;
  }

  async chunksOfDocument(docId: number): Promise<ChunkRow[]> {
    return (this.ctx.sql(`${CHUNK_SELECT} WHERE c.doc_id = ? ORDER BY c.ord`).all(docId) as RawChunk[]).map(toChunk);
  }

  async chunkIdsOfDocument(docId: number): Promise<number[]> {
    return (this.ctx.sql('SELECT id FROM chunks WHERE doc_id = ? ORDER BY ord').all(docId) as { id: number }[]).map(
      (r) => r.id,
    );
  }

  async counts(): Promise<{ documents: number; chunks: number; windows: number }> {
    const c = (t: string) => (this.ctx.sql(`SELECT count(*) AS n FROM ${t}`).get() as { n: number }).n;
    return { documents: c('documents'), chunks: c('chunks'), windows: c('windows') };
  }
}
