import type { ResolvedAccess } from './access.js';
import type { EngineResult, Snippet } from './types.js';

/**
 * A stored result as another asker may see it: every snippet, retrieved chunk, candidate and
 * suggestion from (or leading to) a document they may not see is removed; an answer resting on one
 * is withdrawn. Used where a stored result is shown again (trace view, resumes, follow-ups).
 */
export function redactResult(r: EngineResult, access: ResolvedAccess): EngineResult {
  const ok = (s: Snippet) => access.allowDoc(s.docId);
  // as in resuming: a hop built on hidden evidence goes, with every hop after it
  const firstHidden = r.hops.findIndex((h) => h.snippets.slice(0, 3).some((s) => !ok(s)));
  const hops = firstHidden < 0 ? r.hops : r.hops.slice(0, firstHidden);
  const okDoc = (id: number | null) => id === null || access.allowDoc(id);
  // evidence only of the hops that remain
  const kept = new Set(hops.flatMap((h) => h.retrieved.filter((x) => access.allowDoc(x.docId)).map((x) => x.chunkId)));
  const shown = (s: Snippet) => ok(s) && kept.has(s.chunkId);
  const a = r.answer;
  const answerVisible = !a.source || shown(a.source);
  return {
    ...r,
    hops: hops.map((h) => ({
      ...h,
      retrieved: h.retrieved.filter((x) => access.allowDoc(x.docId)),
      snippets: h.snippets.filter(ok),
      candidates: h.candidates.filter((c) => (c.chunkId === null || okDoc(c.sourceDocId ?? -1)) && okDoc(c.linkDocId)),
    })),
    evidence: r.evidence.filter(shown),
    suggestions: firstHidden >= 0 ? [] : r.suggestions.filter((s) => okDoc(s.sourceDocId) && okDoc(s.linkDocId)),
    answer: {
      ...a,
      ...(answerVisible ? {} : { status: 'insufficient' as const, value: null, sentence: null, source: null }),
      chain: a.chain.filter(shown),
      conflicts: a.conflicts.map((c) => ({ ...c, values: c.values.filter((v) => shown(v.snippet)) })).filter((c) => c.values.length > 1),
      alternatives: a.alternatives.filter((x) => shown(x.snippet)),
      leads: a.leads.filter(shown),
    },
  };
}
