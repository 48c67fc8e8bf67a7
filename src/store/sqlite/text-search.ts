import { filterIds, type DocFilter, type EntityMentions, type MentionHit } from '../types.js';
import type { TextQuery, TextSearch } from '../interfaces.js';
import type { SqliteContext } from './context.js';

/** A text query as an FTS5 MATCH expression: every term a quoted string, so nothing is read as syntax. */
function fts5Match(query: TextQuery): string {
  return query.terms.map((t) => `"${t.replace(/"/g, '""')}"`).join(query.match === 'any' ? ' OR ' : ' ');
}

/**
 * A set of document ids (an asker's allowed documents) as the JSON list that `json_each(?)` reads
 * in SQL; made once per set (resolved sets are never changed), since the same resolution filters
 * every search of a question.
 */
const docIdsJsonCache = new WeakMap<ReadonlySet<number>, string>();
function docIdsJson(ids: ReadonlySet<number>): string {
  let json = docIdsJsonCache.get(ids);
  if (json === undefined) {
    json = JSON.stringify([...ids]);
    docIdsJsonCache.set(ids, json);
  }
  return json;
}

/**
 * An access filter as SQL beside a full-text match, and its parameter: the allowed documents'
 * chunks joined (`c`) and checked one by one; the documents kept out as the set of their chunk ids
 * (`chunkId`: the column that holds a matching chunk's id), which SQLite builds once. The match
 * drives either way: `rowid IN (SELECT id FROM chunks WHERE …)` made SQLite run the match once
 * for every allowed chunk, 3.5 s a search at 100k windows (BENCHMARKS.md, "Corpus scale").
 */
function filterSql(filter: DocFilter | null, chunkId: string): { join: string; sql: string; params: unknown[] } {
  if (!filter) return { join: '', sql: '', params: [] };
  const { ids, only } = filterIds(filter);
  const listed = 'SELECT value FROM json_each(?)';
  return only
    ? {
        join: ' JOIN chunks c ON c.id = chunks_fts.rowid',
        sql: ` AND c.doc_id IN (${listed})`,
        params: [docIdsJson(ids)],
      }
    : {
        join: '',
        sql: ` AND ${chunkId} NOT IN (SELECT id FROM chunks WHERE doc_id IN (${listed}))`,
        params: [docIdsJson(ids)],
      };
}

export class SqliteTextSearch implements TextSearch {
  constructor(private readonly ctx: SqliteContext) {}

  /** BM25 over chunks (title, headings, body): FTS5's own, scores returned as positive numbers, higher is better. */
  async searchText(
    query: TextQuery,
    limit: number,
    weights: [number, number, number] = [2.0, 1.0, 1.0],
    filter: DocFilter | null = null,
  ): Promise<{ chunkId: number; score: number }[]> {
    const match = fts5Match(query);
    if (!match) return [];
    // with an access filter, only chunks of allowed documents are ranked at all
    const only = filterSql(filter, 'chunks_fts.rowid');
    const rows = this.ctx.db
      .prepare(
        `SELECT chunks_fts.rowid AS id, -bm25(chunks_fts, ?, ?, ?) AS score FROM chunks_fts${only.join} WHERE chunks_fts MATCH ?${only.sql} ORDER BY score DESC LIMIT ?`,
      )
      .all(weights[0], weights[1], weights[2], match, ...only.params, limit) as { id: number; score: number }[];
    return rows.map((r) => ({ chunkId: r.id, score: r.score }));
  }

  /**
   * How many chunks (of the given documents) match an FTS5 query, counted up to `cap`: the work is
   * bounded by the cap, not by the corpus. Unfiltered counts are kept until the store changes.
   */
  async countTextMatches(
    queries: readonly TextQuery[],
    cap: number,
    filter: DocFilter | null = null,
  ): Promise<number[]> {
    // in process, a count each costs no round trip
    return queries.map((q) => this.countOf(q, cap, filter));
  }

  private countOf(query: TextQuery, cap: number, filter: DocFilter | null): number {
    const match = fts5Match(query);
    if (!match) return 0;
    const key = `${cap}\u0000${match}`;
    if (!filter) {
      this.refreshTextCounts();
      const hit = this.ctx.textCounts.get(key);
      if (hit !== undefined) return hit;
    }
    const only = filterSql(filter, 'chunks_fts.rowid');
    const n = (
      this.ctx
        .sql(
          `SELECT count(*) AS n FROM (SELECT 1 FROM chunks_fts${only.join} WHERE chunks_fts MATCH ?${only.sql} LIMIT ?)`,
        )
        .get(match, ...only.params, cap) as { n: number }
    ).n;
    if (!filter) this.ctx.textCounts.set(key, n);
    return n;
  }

  /**
   * Counts change with the documents only (never with scopes, as they are unfiltered): this
   * process's writes clear them (replaceDocument, deleteDocumentNow), another's show as a newer
   * index log position, without a query per count.
   */
  private refreshTextCounts(): void {
    if (this.ctx.index.appliedSeq === this.ctx.textCountsSeq) return;
    this.ctx.textCounts.clear();
    this.ctx.textCountsSeq = this.ctx.index.appliedSeq;
  }

  /**
   * Chunks an entity (a query of all its terms) may link to, in bounded work: those whose
   * title or headings contain it, best first (BM25 over titles and headings only, so the work grows
   * with how many titles name it), and up to `mentioned` others that merely mention it (in stored
   * order: ranking every mention would read the whole posting list of a common name).
   */
  async entityMentions(
    queries: readonly TextQuery[],
    limits: { labelled: number; mentioned: number },
    filter: DocFilter | null = null,
  ): Promise<EntityMentions[]> {
    // in process, a query each costs no round trip
    return queries.map((q) => this.mentionsOf(q, limits, filter));
  }

  private mentionsOf(
    query: TextQuery,
    limits: { labelled: number; mentioned: number },
    filter: DocFilter | null,
  ): EntityMentions {
    const match = fts5Match(query);
    if (!match) return { labelled: [], mentioned: [] };
    // both queries below join the chunks as c already
    const filtered = filterSql(filter, 'c.id');
    const only = filtered.sql;
    const params: unknown[] = [match, ...filtered.params];
    const hits = (rows: { chunk_id: number; doc_id: number; title: string; heading_path: string }[]): MentionHit[] =>
      rows.map((r) => ({
        chunkId: r.chunk_id,
        docId: r.doc_id,
        title: r.title,
        headingPath: JSON.parse(r.heading_path) as string[],
      }));
    const labelled = this.ctx.db
      .prepare(
        `SELECT l.rowid AS chunk_id, d.id AS doc_id, d.title, c.heading_path FROM chunk_labels_fts l JOIN chunks c ON c.id = l.rowid JOIN documents d ON d.id = c.doc_id
         WHERE chunk_labels_fts MATCH ?${only} ORDER BY bm25(chunk_labels_fts, 2.0, 1.0) LIMIT ?`,
      )
      .all(...params, limits.labelled) as { chunk_id: number; doc_id: number; title: string; heading_path: string }[];
    const mentioned = this.ctx.db
      .prepare(
        `SELECT f.rowid AS chunk_id, d.id AS doc_id, d.title, c.heading_path FROM chunks_fts f JOIN chunks c ON c.id = f.rowid JOIN documents d ON d.id = c.doc_id
         WHERE chunks_fts MATCH ?${only} LIMIT ?`,
      )
      .all(...params, limits.mentioned + labelled.length) as {
      chunk_id: number;
      doc_id: number;
      title: string;
      heading_path: string;
    }[];
    const seen = new Set(labelled.map((r) => r.chunk_id));
    return {
      labelled: hits(labelled),
      mentioned: hits(mentioned.filter((r) => !seen.has(r.chunk_id)).slice(0, limits.mentioned)),
    };
  }
}
