import type { TextQuery, TextSearch } from '../interfaces.js';
import { filterIds, type DocFilter, type EntityMentions, type MentionHit } from '../types.js';
import type { PgContext } from './context.js';
import { BM25_B, BM25_K1, TERM_SEPARATOR } from './fts.js';

/**
 * An access filter as a condition on a document-id column with the listed ids as parameter `$n`,
 * the ids, and a suffix for the prepared statement's name (each shape is its own plan).
 */
function pgFilter(
  filter: DocFilter | null,
  column: string,
  n: number,
): { sql: string; ids: number[] | null; name: string } {
  if (!filter) return { sql: '', ids: null, name: '' };
  const { ids, only } = filterIds(filter);
  return only
    ? { sql: `AND ${column} = ANY($${n}::bigint[])`, ids: [...ids], name: '-in' }
    : { sql: `AND ${column} <> ALL($${n}::bigint[])`, ids: [...ids], name: '-out' };
}

export class PgTextSearch implements TextSearch {
  private corpusStats: { generation: number; chunks: number; avgLength: number } | null = null;

  constructor(private readonly ctx: PgContext) {}

  /** The corpus size and mean chunk length (BM25's N and avgdl), once per store generation. */
  private async bm25Corpus(): Promise<{ chunks: number; avgLength: number }> {
    const generation = this.ctx.index.appliedSeq;
    if (this.corpusStats?.generation === generation) return this.corpusStats;
    const r = (
      await this.ctx.pool.query<{ n: number; avg: number | null }>(
        'SELECT count(*)::bigint AS n, avg(fts_len)::float8 AS avg FROM chunks',
      )
    ).rows[0]!;
    this.corpusStats = { generation, chunks: r.n, avgLength: r.avg ?? 1 };
    return this.corpusStats;
  }

  /**
   * BM25 as FTS5 computes it, from PostgreSQL's term statistics: for each term, IDF from the number
   * of chunks holding it (ln((N − n + 0.5)/(n + 0.5)), at least 1e-6), its frequency in the chunk
   * with each column weighted (title, headings, body, read from the tsvector's position weights),
   * and length normalisation by the chunk's token count (k1 1.2, b 0.75). A phrase ("kx 220") counts
   * where its words stand next to each other, in order, read from the tsvector's positions, as FTS5
   * counts phrase hits. Only chunks matching the query (and of the allowed documents) are scored.
   */
  async searchText(
    query: TextQuery,
    limit: number,
    weights: [number, number, number] = [2.0, 1.0, 1.0],
    filter: DocFilter | null = null,
  ): Promise<{ chunkId: number; score: number }[]> {
    if (query.terms.length === 0 || (filter && 'only' in filter && filter.only.size === 0)) return [];
    const { chunks: n, avgLength } = await this.bm25Corpus();
    const dfs = await this.countTextMatches(
      query.terms.map((t) => ({ terms: [t], match: 'any' as const })),
      Number.MAX_SAFE_INTEGER,
    );
    const idf = dfs.map((df) => Math.max(1e-6, Math.log((n - df + 0.5) / (df + 0.5))));
    const posting = pgFilter(filter, 'p.doc_id', 8);
    const only = posting.sql;
    const onlyChunks = pgFilter(filter, 'c.doc_id', 8).sql;
    const params: unknown[] = [query.terms, idf, weights[0], weights[1], weights[2], avgLength, limit];
    if (posting.ids) params.push(posting.ids);
    const rows = await this.ctx.pool.query<{ id: number; score: number }>({
      // prepared once per connection: one plan for every search of this shape
      name: `bm25-${query.match}${posting.name}`,
      text: `WITH q AS (
         -- each word of each term, at its place in the term (1 for a single word)
         SELECT t.term, t.idf, l.lexeme, l.positions[1] AS idx, count(*) OVER (PARTITION BY t.term) AS words
         FROM unnest($1::text[], $2::float8[]) AS t(term, idf), unnest(to_tsvector('ragask', t.term)) AS l
       ),
       single AS (
         -- a one-word term: its frequency is its posting's counts per column, weighed (read through the
         -- index: OFFSET 0 keeps the planner from a join that scans the whole table, which it picks
         -- when it cannot tell how few rows a word has)
         SELECT p.chunk_id AS id, p.fts_len, q.term, q.idf,
                $3::float8 * p.in_title + $4::float8 * p.in_headings + $5::float8 * p.in_body AS tf
         FROM q CROSS JOIN LATERAL (
           SELECT p.chunk_id, p.fts_len, p.in_title, p.in_headings, p.in_body FROM postings p
           WHERE q.words = 1 AND p.lexeme = q.lexeme ${only} OFFSET 0
         ) p
       ),
       occ AS (
         -- a phrase's words, in the chunks that hold the phrase ("arthur s" must not read every "s"),
         -- each occurrence by where its phrase would start
         SELECT p.chunk_id AS id, p.fts_len, q.term, q.idf, q.words, q.idx, x.pos - q.idx AS start, x.w
         FROM q CROSS JOIN LATERAL (
           -- the chunks that hold the phrase first, from the tsvector index (OFFSET 0: not a join)
           SELECT c.id FROM chunks c WHERE q.words > 1 AND c.fts @@ phraseto_tsquery('ragask', q.term) ${onlyChunks} OFFSET 0
         ) m
         CROSS JOIN LATERAL (SELECT p.* FROM postings p WHERE p.lexeme = q.lexeme AND p.chunk_id = m.id OFFSET 0) p
         CROSS JOIN LATERAL unnest(p.positions, p.weights) AS x(pos, w)
       ),
       hits AS (
         -- a phrase occurs where all its words sit in order from one start; it counts with its column's weight
         SELECT id, fts_len, term, idf, CASE min(w) WHEN 'A' THEN $3::float8 WHEN 'B' THEN $4::float8 ELSE $5::float8 END AS weight
         FROM occ GROUP BY id, fts_len, term, idf, words, start HAVING count(DISTINCT idx) = words
       ),
       terms AS (
         SELECT id, fts_len, idf, tf FROM single
         UNION ALL
         SELECT id, fts_len, idf, sum(weight) AS tf FROM hits GROUP BY id, fts_len, term, idf
       )
       SELECT id, sum(idf * tf * ${BM25_K1 + 1} / (tf + ${BM25_K1} * (${1 - BM25_B} + ${BM25_B} * fts_len / $6::float8)))::float8 AS score
       FROM terms GROUP BY id ${query.match === 'all' ? 'HAVING count(*) = (SELECT count(DISTINCT t) FROM unnest($1::text[]) AS t)' : ''}
       ORDER BY score DESC, id LIMIT $7`,
      values: params,
    });
    return rows.rows.map((r) => ({ chunkId: r.id, score: r.score }));
  }

  /**
   * How many chunks (of the given documents) match each query, counted up to `cap`, in one round trip
   * for all that are not cached; unfiltered counts are kept until the store changes.
   */
  async countTextMatches(
    queries: readonly TextQuery[],
    cap: number,
    filter: DocFilter | null = null,
  ): Promise<number[]> {
    const keyOf = (q: TextQuery) => `${q.match}\u0000${q.terms.join('\u0001')}`;
    const out = queries.map((q) => {
      if (q.terms.length === 0) return 0;
      // a count below its cap is exact, and answers any later cap too (BM25's IDF asks uncapped)
      const hit = filter ? undefined : this.ctx.textCounts.get(keyOf(q));
      return hit && (hit.exact || cap <= hit.n) ? Math.min(hit.n, cap) : null;
    });
    const asked = queries.map((q, i) => ({ q, i })).filter(({ i }) => out[i] === null);
    if (asked.length === 0) return out as number[];
    const listed = pgFilter(filter, 'doc_id', 4);
    const only = listed.sql;
    const params: unknown[] = [
      asked.map(({ q }) => q.terms.join(TERM_SEPARATOR)),
      asked.map(({ q }) => q.match),
      Math.min(cap, Number.MAX_SAFE_INTEGER),
    ];
    if (listed.ids) params.push(listed.ids);
    // one word is counted from its postings (an index range); a phrase, or several terms, from the
    // chunks' tsvectors
    const rows = (
      await this.ctx.pool.query<{ i: number; n: number }>({
        name: `count${listed.name}`,
        text: `WITH u AS (
           SELECT u.i, string_to_array(u.terms, '${TERM_SEPARATOR}') AS terms, u.m
           FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS u(terms, m, i)
         ),
         w AS (
           SELECT u.*, v.lexemes, v.positions FROM u CROSS JOIN LATERAL (
             SELECT array_agg(l.lexeme) AS lexemes, sum(coalesce(array_length(l.positions, 1), 1)) AS positions
             FROM unnest(to_tsvector('ragask', u.terms[1])) AS l
           ) v
         )
         SELECT w.i, CASE WHEN cardinality(w.terms) = 1 AND w.positions = 1
           THEN (SELECT count(*) FROM (SELECT 1 FROM postings WHERE lexeme = w.lexemes[1] ${only} LIMIT $3) s)
           ELSE (SELECT count(*) FROM (SELECT 1 FROM chunks WHERE fts @@ (
                   SELECT CASE WHEN w.m = 'any' THEN ragask_tsquery_or(phraseto_tsquery('ragask', t))
                               ELSE ragask_tsquery_and(phraseto_tsquery('ragask', t)) END
                   FROM unnest(w.terms) AS t) ${only} LIMIT $3) s)
           END::bigint AS n
         FROM w`,
        values: params,
      })
    ).rows;
    for (const r of rows) {
      const { q, i } = asked[Number(r.i) - 1]!;
      const n = Number(r.n);
      out[i] = n;
      if (!filter) this.ctx.textCounts.set(keyOf(q), { n, exact: n < cap });
    }
    return out as number[];
  }

  /**
   * Chunks each entity may link to, in bounded work and one round trip for all of them: those whose
   * title or headings hold all its terms, best first (ts_rank over titles and headings; the caller
   * scores each by Jaccard anyway), then up to `mentioned` others that merely mention it, in stored
   * order.
   */
  async entityMentions(
    queries: readonly TextQuery[],
    limits: { labelled: number; mentioned: number },
    filter: DocFilter | null = null,
  ): Promise<EntityMentions[]> {
    const out: EntityMentions[] = queries.map(() => ({ labelled: [], mentioned: [] }));
    const asked = queries.map((q, i) => ({ q, i })).filter(({ q }) => q.terms.length > 0);
    if (asked.length === 0) return out;
    const listed = pgFilter(filter, 'c.doc_id', 5);
    const only = listed.sql;
    const params: unknown[] = [
      asked.map(({ q }) => q.terms.join(TERM_SEPARATOR)),
      asked.map(({ q }) => q.match),
      limits.labelled,
      // a mention that is also labelled is left out below: read as many more as could be
      limits.mentioned + limits.labelled,
    ];
    if (listed.ids) params.push(listed.ids);
    const rows = (
      await this.ctx.pool.query<{
        i: number;
        labelled: boolean;
        chunk_id: number;
        doc_id: number;
        title: string;
        heading_path: string;
      }>({
        name: `entity-mentions${listed.name}`,
        text: `WITH q AS (
           SELECT u.i, (SELECT CASE WHEN u.m = 'any' THEN ragask_tsquery_or(phraseto_tsquery('ragask', t))
                                    ELSE ragask_tsquery_and(phraseto_tsquery('ragask', t)) END
                        FROM unnest(string_to_array(u.terms, '${TERM_SEPARATOR}')) AS t) AS tsq
           FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS u(terms, m, i)
         )
         SELECT * FROM (
           SELECT q.i, true AS labelled, l.* FROM q CROSS JOIN LATERAL (
             SELECT c.id AS chunk_id, c.doc_id, d.title, c.heading_path,
                    row_number() OVER (ORDER BY ts_rank('{0, 0, 0.5, 1.0}', c.labels, q.tsq, 1) DESC, c.id) AS n
             FROM chunks c JOIN documents d ON d.id = c.doc_id WHERE c.labels @@ q.tsq ${only}
             ORDER BY n LIMIT $3
           ) l
           UNION ALL
           SELECT q.i, false, m.* FROM q CROSS JOIN LATERAL (
             SELECT c.id AS chunk_id, c.doc_id, d.title, c.heading_path, row_number() OVER () AS n
             FROM chunks c JOIN documents d ON d.id = c.doc_id WHERE c.fts @@ q.tsq ${only} LIMIT $4
           ) m
         ) x ORDER BY i, labelled DESC, n`,
        values: params,
      })
    ).rows;
    for (const r of rows) {
      const hit: MentionHit = {
        chunkId: r.chunk_id,
        docId: r.doc_id,
        title: r.title,
        headingPath: JSON.parse(r.heading_path) as string[],
      };
      const mentions = out[asked[Number(r.i) - 1]!.i]!;
      (r.labelled ? mentions.labelled : mentions.mentioned).push(hit);
    }
    for (const m of out) {
      const seen = new Set(m.labelled.map((h) => h.chunkId));
      m.mentioned = m.mentioned.filter((h) => !seen.has(h.chunkId)).slice(0, limits.mentioned);
    }
    return out;
  }
}
