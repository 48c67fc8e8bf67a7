import type { EngineResult } from '../engine/types.js';

/** One gate decision of a chain, with whether the hop it would start was right. */
export interface GateCheck {
  /** The next hop brought a still-missing supporting passage into its top snippets. */
  right: boolean;
  /** The gate stopped there (the chain would have asked a person). */
  stopped: boolean;
  /** Supporting passages still missing at the check (0: the evidence was complete, any hop is needless). */
  missing: number;
  pRight: number | null;
  cosine: number;
  features: number[] | null;
}

/** How the gate did over a run: the wrong-bridge hops it stopped, and the right ones it stopped too. */
export interface GateStats {
  wrong_bridge_hops: number;
  stopped_wrong: number;
  right_bridge_hops: number;
  stopped_right: number;
}

/**
 * Labels every gate decision of a chain that was run in shadow mode (the gate measured, never
 * obeyed): a "wrong bridge" is a next hop whose top snippets hold none of the supporting passages
 * still missing after the hops before it. A check whose next hop never ran (budget, hop limit) has
 * no label and is left out.
 */
export function labelGateChecks(
  r: EngineResult,
  supporting: readonly string[],
  passageOf: (source: string) => string,
): GateCheck[] {
  const gold = new Set(supporting);
  const found = new Set<string>();
  const out: GateCheck[] = [];
  r.hops.forEach((h, i) => {
    for (const s of h.snippets) found.add(passageOf(s.citation.source));
    const next = r.hops[i + 1];
    if (!h.coherence || !next) return;
    const missing = [...gold].filter((g) => !found.has(g));
    const right = next.snippets.some((s) => missing.includes(passageOf(s.citation.source)));
    out.push({
      right,
      stopped: !h.coherence.passed,
      missing: missing.length,
      pRight: h.coherence.pRight,
      cosine: h.coherence.cosine,
      features: h.coherence.gateFeatures ?? null,
    });
  });
  return out;
}

export function gateStats(checks: readonly GateCheck[]): GateStats {
  const wrong = checks.filter((c) => !c.right);
  const right = checks.filter((c) => c.right);
  return {
    wrong_bridge_hops: wrong.length,
    stopped_wrong: wrong.filter((c) => c.stopped).length,
    right_bridge_hops: right.length,
    stopped_right: right.filter((c) => c.stopped).length,
  };
}
