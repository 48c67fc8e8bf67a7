import { snippetFrom } from '../engine/snippet.js';
import type { HopEngine } from '../engine/hops.js';
import type { Retriever } from '../engine/retrieve.js';
import { LOCAL } from '../store/access.js';
import type { EvalDataset } from './dataset.js';
import type { Ranker } from './run.js';

/** Distinct passages in rank order, with the snippet each was first cited by. */
export function distinctPassages(dataset: EvalDataset, sources: readonly { source: string; snippet: string }[]): { passages: string[]; snippets: string[] } {
  const passages: string[] = [];
  const snippets: string[] = [];
  const seen = new Set<string>();
  for (const s of sources) {
    snippets.push(s.snippet);
    const p = dataset.passageOf(s.source);
    if (seen.has(p)) continue;
    seen.add(p);
    passages.push(p);
  }
  return { passages, snippets };
}

/** Single-hop retrieval in one mode (bm25, dense or hybrid) as an eval ranker. */
export function singleHopRanker(retriever: Retriever, dataset: EvalDataset, mode: 'bm25' | 'dense' | 'hybrid'): Ranker {
  return async (q, k) => {
    // Chunks, not passages, are ranked: ask for enough chunks to fill k distinct passages.
    const r = await retriever.retrieve(q.question, { k: k * 4, mode, rerankCandidates: Math.max(60, k * 8) });
    const { passages, snippets } = distinctPassages(
      dataset,
      r.candidates.map((c) => ({ source: c.chunk.doc.source, snippet: snippetFrom(c).text })),
    );
    return { passages, snippets, hops: 1 };
  };
}

/** The multi-hop engine as an eval ranker: its final evidence list, exactly what it would cite. */
export function multiHopRanker(engine: HopEngine, dataset: EvalDataset): Ranker {
  return async (q) => {
    // evaluation reads the whole corpus, as the operator would
    const r = await engine.run(q.question, LOCAL);
    const { passages, snippets } = distinctPassages(
      dataset,
      r.evidence.map((s) => ({ source: s.citation.source, snippet: s.text })),
    );
    const checks = r.hops.flatMap((h) => (h.coherence ? [{ cosine: h.coherence.cosine, directional: h.coherence.directional, passed: h.coherence.passed, threshold: h.coherence.threshold }] : []));
    return { passages, snippets, hops: r.hops.length, coherence: { checks, stoppedForPerson: r.stopReason === 'low_coherence' } };
  };
}
