import type { ResolvedAccess } from './access.js';
import { withheldAnswer } from './answer/compose.js';
import type { EngineResult, HopState, Snippet } from './types.js';

/** Whether a bridge reveals nothing hidden: the chunk it came from and the document it leads to are visible. */
function visibleBridge(
  b: { sourceDocId: number | null; linkDocId: number | null } | null,
  allow: (docId: number) => boolean,
): boolean {
  if (!b) return true;
  return (b.sourceDocId === null || allow(b.sourceDocId)) && (b.linkDocId === null || allow(b.linkDocId));
}

/**
 * A stored result as another asker may see it. A hop whose evidence they may not see — or whose
 * query was built from a bridge drawn from or leading to such evidence — shaped every hop after it,
 * so that hop and all later ones go (not just the hidden snippets: their queries would name what
 * the hidden evidence said). From the hops that remain, every hidden snippet, retrieved chunk,
 * candidate and suggestion is removed, and the answer is withheld (only visible evidence is offered as leads). This is
 * the one place where a result crosses from one access context to another: trace views, resumes
 * and follow-ups all go through it.
 */
export function redactResult(r: EngineResult, access: ResolvedAccess): EngineResult {
  const allow = (id: number) => access.allowDoc(id);
  const hiddenHop = (h: HopState) =>
    h.snippets.slice(0, 3).some((s) => !allow(s.docId)) || !visibleBridge(h.bridgeFrom ?? null, allow);
  const cut = r.hops.findIndex(hiddenHop);
  const kept = cut < 0 ? r.hops : r.hops.slice(0, cut);
  const anythingHidden =
    cut >= 0 ||
    r.evidence.some((s) => !allow(s.docId)) ||
    r.hops.some(
      (h) => h.retrieved.some((x) => !allow(x.docId)) || h.candidates.some((c) => !visibleBridge(c, allow)),
    ) ||
    r.suggestions.some((s) => !visibleBridge(s, allow));
  if (!anythingHidden) return r;

  const hops: HopState[] = kept.map((h, i) => {
    const last = i === kept.length - 1 && cut >= 0;
    return {
      ...h,
      retrieved: h.retrieved.filter((x) => allow(x.docId)),
      snippets: h.snippets.filter((s) => allow(s.docId)),
      candidates: h.candidates.filter((c) => visibleBridge(c, allow)),
      // the next query would name the dropped hop's bridge
      ...(last ? { nextQuery: null, coherence: null } : {}),
    };
  });
  const keptChunks = new Set(hops.flatMap((h) => h.retrieved.map((x) => x.chunkId)));
  const evidence = r.evidence.filter((s: Snippet) => allow(s.docId) && keptChunks.has(s.chunkId));
  const suggestions = cut >= 0 ? [] : r.suggestions.filter((s) => visibleBridge(s, allow));
  return {
    ...r,
    hops,
    evidence,
    suggestions,
    // the reading rested on passages read together: no value, conflict or reason of a hidden snippet survives
    answer: withheldAnswer(hops, evidence),
    // the written sentences were read from the whole evidence and cite it by number: neither survives
    written: undefined,
  };
}
