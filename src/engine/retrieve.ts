import { LRUCache } from 'lru-cache';
import type { Encoder } from '../models/encoder.js';
import type { ChunkRow, WindowRow } from '../store/types.js';
import type { Store } from '../store/interfaces.js';
import type { ResolvedAccess } from './access.js';
import { queryTerms, textQuery } from './fts-query.js';
import type { TextQuery } from '../store/interfaces.js';
import { contentTerms, termSet } from './text.js';
import { bestWindow, cosineScorer, type WindowScore, type WindowScorer } from './rerank.js';

export interface RetrieveOptions {
  /** Chunks to return after reranking. */
  k: number;
  /** Windows asked of HNSW. */
  denseWindows?: number;
  /** Chunks asked of BM25. */
  bm25Chunks?: number;
  /** Fused candidates that get the window rerank. */
  rerankCandidates?: number;
  /** Chunks never to return (already found by an earlier hop). */
  exclude?: ReadonlySet<number>;
  /** What the asker may see: applied inside both searches, before ranking. */
  access?: ResolvedAccess;
  /** Weight of the evidence density of a chunk in the final score. */
  densityWeight?: number;
  /** Query vector, when the caller already has it. */
  queryVector?: Float32Array;
  /** Retrieval modes for evaluation: both (default), or one alone. */
  mode?: 'hybrid' | 'dense' | 'bm25';
  /** Weight of normalised BM25 added to the rerank score in hybrid mode. */
  lexicalWeight?: number;
  /**
   * The entity this hop is about (a bridge): documents titled by it are searched as a third list
   * and get a bonus, so the hop reaches the entity's own documents.
   */
  focus?: string | null;
}

export interface Candidate {
  chunk: ChunkRow;
  /** Best window cosine from the HNSW search (null: not found densely). */
  dense: number | null;
  denseRank: number | null;
  /** BM25 of the chunk (null: no term matched). */
  bm25: number | null;
  bm25Rank: number | null;
  /** Reciprocal-rank fusion of the two lists. */
  fused: number;
  /** Best-window rerank score. */
  rerank: number;
  window: WindowScore | null;
  /** Final score used for ordering. */
  score: number;
}

export interface RetrieveResult {
  query: string;
  queryVector: Float32Array;
  candidates: Candidate[];
  timings: { encodeMs: number; denseMs: number; bm25Ms: number; rerankMs: number; totalMs: number };
}

export interface RetrieverDeps {
  store: Store;
  encoder: Encoder;
  scorer?: WindowScorer;
  /** Default weight of evidence density (RAGASK_DENSITY_WEIGHT). */
  densityWeight?: number;
  /** Decoded windows kept in memory (chunks). */
  windowCacheSize?: number;
  /** Postings one BM25 search may read (default BM25_POSTINGS; tests set it low). */
  bm25Postings?: number;
  /** Sees every reranked candidate of a search, best first (`ragask rows --candidates` writes them). */
  observeCandidates?: (query: string, candidates: readonly Candidate[]) => void;
}

const RRF_K = 60;
/** Postings (chunks, summed over the query's terms) one BM25 search may read; see bm25Query. */
const BM25_POSTINGS = 8000;
/** Bonus of a chunk whose document title is the focus entity. */
const FOCUS_WEIGHT = 0.3;

/** 1 when the title is exactly the entity, less as the title adds words; 0 when it misses one. */
function titleMatch(entityTerms: readonly string[], title: string): number {
  const t = termSet(title);
  if (!entityTerms.every((x) => t.has(x))) return 0;
  return entityTerms.length / Math.max(entityTerms.length, t.size);
}

/**
 * Single-hop hybrid retrieval: dense (HNSW over window vectors; a chunk takes its best window) and
 * BM25 (FTS5 over title, headings and text) fused by reciprocal rank, then the fused candidates are
 * reranked window by window.
 */
/**
 * The share of its score a demoted source keeps (the score is the reranker's cosine, about 0.3 to
 * 0.9 for candidates, plus the lexical share): it falls below the passages that answer nearly as
 * well, and is still found when nothing else answers (docs/benchmarks-history.md, "Demoted sources").
 */
const DEMOTE_FACTOR = 0.7;

export class Retriever {
  readonly store: Store;
  readonly encoder: Encoder;
  scorer: WindowScorer;
  private readonly densityWeight: number;
  private readonly bm25Postings: number;
  private readonly observeCandidates: RetrieverDeps['observeCandidates'];
  private readonly windowCache: LRUCache<number, WindowRow[]>;
  private cacheGeneration = -1;

  constructor(deps: RetrieverDeps) {
    this.store = deps.store;
    this.encoder = deps.encoder;
    this.scorer = deps.scorer ?? cosineScorer;
    this.densityWeight = deps.densityWeight ?? 0;
    this.bm25Postings = deps.bm25Postings ?? BM25_POSTINGS;
    this.observeCandidates = deps.observeCandidates;
    this.windowCache = new LRUCache({ max: deps.windowCacheSize ?? 20_000 });
  }

  /** Windows of chunks, from the LRU or the store (decoded once). */
  async windowsOf(chunkIds: readonly number[]): Promise<Map<number, WindowRow[]>> {
    // chunk ids can be reused after a document is replaced: a cache of another generation is dropped
    const generation = this.store.index.appliedSeq;
    if (generation !== this.cacheGeneration) {
      this.windowCache.clear();
      this.cacheGeneration = generation;
    }
    const out = new Map<number, WindowRow[]>();
    const missing: number[] = [];
    for (const id of chunkIds) {
      const w = this.windowCache.get(id);
      if (w) out.set(id, w);
      else missing.push(id);
    }
    if (missing.length) {
      const rows = await this.store.vectors.windowsOfChunks(missing);
      const grouped = new Map<number, WindowRow[]>(missing.map((id) => [id, []]));
      for (const r of rows) grouped.get(r.chunkId)!.push(r);
      for (const [id, ws] of grouped) {
        this.windowCache.set(id, ws);
        out.set(id, ws);
      }
    }
    return out;
  }

  /** Window vectors of every chunk of a document. */
  async windowsOfDoc(docId: number): Promise<Float32Array[]> {
    return this.windowVectors(await this.store.documents.chunkIdsOfDocument(docId));
  }

  async windowVectors(chunkIds: readonly number[]): Promise<Float32Array[]> {
    return [...(await this.windowsOf(chunkIds)).values()].flat().map((w) => w.vector);
  }

  clearCache(): void {
    this.windowCache.clear();
  }

  /**
   * The BM25 query: the question's terms, rarest first, as long as the chunks they occur in add up
   * to at most the budget (BM25_POSTINGS; the rarest term is always kept). FTS5's BM25 reads the whole posting list
   * of every term to weigh it, so the work of a search is bounded by that budget, not by the corpus;
   * a term left out is a common one (at 27k chunks, in thousands of them: an IDF under about 2,
   * against 6 to 10 for the names and numbers a question turns on). Below the budget, as in a corpus
   * of a few thousand chunks, every term stays and BM25 is exactly what it was.
   */
  async bm25Query(query: string): Promise<TextQuery> {
    const budget = this.bm25Postings;
    // counted together: one round trip to a backend across the network
    const words = queryTerms(query);
    const dfs = await this.store.text.countTextMatches(
      words.map((t) => ({ terms: [t], match: 'any' as const })),
      budget + 1,
    );
    const terms = words.map((t, i) => ({ t, i, df: dfs[i]! }));
    const kept: typeof terms = [];
    let postings = 0;
    for (const x of [...terms].sort((a, b) => a.df - b.df || a.i - b.i)) {
      if (kept.length > 0 && postings + x.df > budget) continue;
      kept.push(x);
      postings += x.df;
    }
    return { terms: kept.sort((a, b) => a.i - b.i).map((x) => x.t), match: 'any' };
  }

  /** Dense: windows from HNSW, grouped into chunks by their best window. */
  private async denseChunks(
    qv: Float32Array,
    opts: RetrieveOptions,
    exclude: ReadonlySet<number>,
  ): Promise<Map<number, number>> {
    const dense = new Map<number, number>();
    // HNSW filters while it searches: windows of documents the asker may not see are never candidates
    const hits = await this.store.index.search(qv, opts.denseWindows ?? 100, opts.access?.docFilter ?? null);
    const chunkOf = await this.store.vectors.windowChunks(hits.map((h) => h.windowId));
    for (const h of hits) {
      const c = chunkOf.get(h.windowId);
      if (c === undefined || exclude.has(c)) continue;
      if ((dense.get(c) ?? -Infinity) < h.score) dense.set(c, h.score);
    }
    return dense;
  }

  /** The fused ranking's best chunks (the rerank pool), those the asker may see, and their windows. */
  private async poolOf(fused: ReadonlyMap<number, number>, opts: RetrieveOptions) {
    const pool = [...fused.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, opts.rerankCandidates ?? Math.max(40, opts.k * 4));
    const chunks = await this.store.documents.getChunks(pool.map(([id]) => id));
    const allowed = pool.filter(([id]) => {
      const c = chunks.get(id);
      return c && (!opts.access || opts.access.allowDoc(c.docId));
    });
    return { chunks, allowed, windows: await this.windowsOf(allowed.map(([id]) => id)) };
  }

  /** A chunk's best window for the query, scored by the window scorer. */
  private bestWindowOf(
    qv: Float32Array,
    ws: readonly { id: number; charStart: number; charEnd: number; vector: Float32Array }[],
  ) {
    const scores = this.scorer.score(
      qv,
      ws.map((w) => w.vector),
    );
    return bestWindow(
      ws.map((w, i) => ({ windowId: w.id, charStart: w.charStart, charEnd: w.charEnd, score: scores[i]! })),
    );
  }

  async retrieve(query: string, opts: RetrieveOptions): Promise<RetrieveResult> {
    const t0 = performance.now();
    const mode = opts.mode ?? 'hybrid';
    const qv = opts.queryVector ?? (await this.encoder.encodeOne(query));
    const t1 = performance.now();
    await this.store.caches.syncIndex();
    const exclude = opts.exclude ?? new Set<number>();

    // Dense: windows from HNSW, grouped into chunks by their best window.
    const docFilter = opts.access?.docFilter ?? null;
    const dense = mode === 'bm25' ? new Map<number, number>() : await this.denseChunks(qv, opts, exclude);
    const t2 = performance.now();

    const bm25 = new Map<number, number>();
    if (mode !== 'dense') {
      for (const r of await this.store.text.searchText(
        await this.bm25Query(query),
        (opts.bm25Chunks ?? 50) + exclude.size,
        undefined,
        docFilter,
      )) {
        if (!exclude.has(r.chunkId)) bm25.set(r.chunkId, r.score);
      }
    }
    // Focus: documents whose title names the bridge entity (all its terms).
    const focusTerms = opts.focus ? contentTerms(opts.focus) : [];
    const focus = new Map<number, number>();
    if (focusTerms.length && mode !== 'dense') {
      // every term of the entity, titles weighing most: its own document first, then its mentions
      const all = textQuery(opts.focus!, 'all');
      if (all.terms.length)
        for (const r of await this.store.text.searchText(all, 20, [4.0, 2.0, 1.0], docFilter))
          if (!exclude.has(r.chunkId)) focus.set(r.chunkId, r.score);
    }
    const t3 = performance.now();

    const { fused, denseRank, bm25Rank } = fuse(dense, bm25, focus);

    const { chunks, allowed, windows } = await this.poolOf(fused, opts);
    const maxBm25 = Math.max(1e-9, ...allowed.map(([id]) => bm25.get(id) ?? 0));
    const densityWeight = opts.densityWeight ?? this.densityWeight;

    const candidates: Candidate[] = allowed.map(([id, f]) => {
      const chunk = chunks.get(id)!;
      const window = this.bestWindowOf(qv, windows.get(id) ?? []);
      const rerank = window?.score ?? 0;
      const b = bm25.get(id) ?? null;
      const lexical = b === null ? 0 : b / maxBm25;
      const focusBonus = focusTerms.length ? FOCUS_WEIGHT * titleMatch(focusTerms, chunk.doc.title) : 0;
      const base =
        mode === 'bm25' ? lexical : mode === 'dense' ? rerank : rerank + (opts.lexicalWeight ?? 0.25) * lexical;
      const demoted = opts.access?.demoted.has(chunk.docId) ? DEMOTE_FACTOR : 1;
      const score = (base + densityWeight * chunk.density + focusBonus) * demoted;
      return {
        chunk,
        dense: dense.get(id) ?? null,
        denseRank: denseRank.get(id) ?? null,
        bm25: b,
        bm25Rank: bm25Rank.get(id) ?? null,
        fused: f,
        rerank,
        window,
        score,
      };
    });
    candidates.sort((a, b) => b.score - a.score);
    this.observeCandidates?.(query, candidates);
    const t4 = performance.now();
    return {
      query,
      queryVector: qv,
      candidates: candidates.slice(0, opts.k),
      timings: { encodeMs: t1 - t0, denseMs: t2 - t1, bm25Ms: t3 - t2, rerankMs: t4 - t3, totalMs: t4 - t0 },
    };
  }
}

/** Reciprocal-rank fusion of the dense and BM25 rankings, with the focus ranking added. */
function fuse(
  dense: ReadonlyMap<number, number>,
  bm25: ReadonlyMap<number, number>,
  focus: ReadonlyMap<number, number>,
): { fused: Map<number, number>; denseRank: Map<number, number>; bm25Rank: Map<number, number> } {
  const rankOf = (scores: ReadonlyMap<number, number>) =>
    new Map([...scores.entries()].sort((a, b) => b[1] - a[1]).map(([id], i) => [id, i + 1]));
  const denseRank = rankOf(dense);
  const bm25Rank = rankOf(bm25);
  const fused = new Map<number, number>();
  for (const ranks of [denseRank, bm25Rank, rankOf(focus)])
    for (const [id, r] of ranks) fused.set(id, (fused.get(id) ?? 0) + 1 / (RRF_K + r));
  return { fused, denseRank, bm25Rank };
}
