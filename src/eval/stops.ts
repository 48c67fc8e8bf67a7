import { suggestionLabel } from '../engine/suggestion-label.js';
import type { EngineResult, HopState, LinkVia } from '../engine/types.js';
import { LOCAL } from '../store/access.js';
import type { EngineApi } from '../engine/api.js';

/**
 * Hops worth a click, measured: whether each bridge a reply took or offered brought a supporting
 * passage still missing (a "right bridge"), and, at every stop at the gate, whether each suggestion
 * would have: it is followed (the chain resumed with it) and its new hop's snippets are looked at.
 */

/** One stop at the gate, as the 'always' policy offers it, with what following each suggestion brought. */
export interface StopCheck {
  /** A short answer stood at the stop (the when-useful policy answers then, without asking). */
  answerGiven: boolean;
  /** The gate's P(brings missing evidence) of each suggestion, in the order offered. */
  p: number[];
  /** Whether following each suggestion brought a still-missing supporting passage. */
  useful: boolean[];
  /** Supporting passages still missing at the stop (0: the evidence was complete). */
  missing: number;
  /** Each suggestion as a person reads it ("entity → where it leads"), and how it links there. */
  labels: string[];
  via: (LinkVia | null)[];
}

/** What the reply itself did: its bridges and, if it asked a person, its suggestions labelled. */
export interface ClickLabels {
  /** Bridges taken on the engine's own (hops after the first, not chosen by a person) and offered, labelled right or not. */
  bridgesRight: number;
  bridges: number;
  /** For a reply that stopped for a person: each offered suggestion, whether it brings missing evidence. */
  offeredUseful: boolean[] | null;
  /** The stop at the gate of this question's chain, if it had one (labelled under the 'always' policy). */
  stop: StopCheck | null;
}

type PassageOf = (source: string) => string;

/** Supporting passages not in the top snippets of these hops. */
function missingAfter(hops: readonly HopState[], supporting: readonly string[], passageOf: PassageOf): string[] {
  const found = new Set(hops.flatMap((h) => h.snippets.map((s) => passageOf(s.citation.source))));
  return supporting.filter((g) => !found.has(g));
}

/** The hop brings one of `missing` into its top snippets. */
const brings = (hop: HopState | undefined, missing: readonly string[], passageOf: PassageOf) =>
  !!hop && hop.snippets.some((s) => missing.includes(passageOf(s.citation.source)));

/** Follows each suggestion of a stopped result and says whether its hop brought missing evidence. */
async function labelSuggestions(
  engine: EngineApi,
  r: EngineResult,
  supporting: readonly string[],
  passageOf: PassageOf,
): Promise<boolean[]> {
  const missing = missingAfter(r.hops, supporting, passageOf);
  const out: boolean[] = [];
  for (let i = 0; i < r.suggestions.length; i++) {
    if (missing.length === 0) {
      out.push(false);
      continue;
    }
    const resumed = await engine.resume(r, i, LOCAL);
    out.push(brings(resumed.hops[r.hops.length], missing, passageOf));
  }
  return out;
}

function stopCheckOf(
  r: EngineResult,
  useful: boolean[],
  supporting: readonly string[],
  passageOf: PassageOf,
): StopCheck {
  return {
    answerGiven: r.answer.value !== null,
    p: r.suggestions.map((s) => s.coherence.pRight ?? 0),
    useful,
    missing: missingAfter(r.hops, supporting, passageOf).length,
    labels: r.suggestions.map(suggestionLabel),
    via: r.suggestions.map((s) => s.leadsVia ?? null),
  };
}

/**
 * Labels a reply's bridges and suggestions. A reply that answered at a stop instead of asking
 * (hop_unsure) is asked again under the 'always' policy, so every stop at the gate has its
 * suggestions labelled, asked or not: that is what the useful threshold is chosen from.
 */
export async function labelClicks(
  engine: EngineApi,
  r: EngineResult,
  question: string,
  supporting: readonly string[],
  passageOf: PassageOf,
): Promise<ClickLabels> {
  let bridgesRight = 0;
  let bridges = 0;
  r.hops.forEach((h, i) => {
    if (i === 0 || !h.bridge || h.formedBy === 'suggestion') return;
    bridges++;
    if (brings(h, missingAfter(r.hops.slice(0, i), supporting, passageOf), passageOf)) bridgesRight++;
  });
  let offeredUseful: boolean[] | null = null;
  let stop: StopCheck | null = null;
  if (r.stopReason === 'low_coherence' && r.suggestions.length) {
    offeredUseful = await labelSuggestions(engine, r, supporting, passageOf);
    bridges += offeredUseful.length;
    bridgesRight += offeredUseful.filter(Boolean).length;
    stop = stopCheckOf(r, offeredUseful, supporting, passageOf);
  } else if (r.stopReason === 'hop_unsure') {
    const asked = await engine.run(question, LOCAL, { stopForPerson: 'always' });
    if (asked.stopReason === 'low_coherence' && asked.suggestions.length)
      stop = stopCheckOf(asked, await labelSuggestions(engine, asked, supporting, passageOf), supporting, passageOf);
  }
  return { bridgesRight, bridges, offeredUseful, stop };
}

/** The click figures over questions: useful_stops, any_useful_stops (null without stops) and right_bridges. */
export function clickStats(
  rows: readonly { clicks?: ClickLabels }[],
):
  | { useful_stops: number | null; any_useful_stops: number | null; right_bridges: number | null; bridges: number }
  | undefined {
  const labelled = rows.filter((r) => r.clicks).map((r) => r.clicks!);
  if (!labelled.length) return undefined;
  const stops = labelled.filter((c) => c.offeredUseful?.length);
  const bridges = labelled.reduce((a, c) => a + c.bridges, 0);
  return {
    useful_stops: stops.length ? stops.filter((c) => c.offeredUseful![0]).length / stops.length : null,
    any_useful_stops: stops.length ? stops.filter((c) => c.offeredUseful!.some(Boolean)).length / stops.length : null,
    right_bridges: bridges ? labelled.reduce((a, c) => a + c.bridgesRight, 0) / bridges : null,
    bridges,
  };
}

/** Thresholds the stop sweep reports: the share of questions that would stop, and how useful those stops are. */
const USEFUL_SWEEP = [0, 0.02, 0.05, 0.08, 0.1, 0.15, 0.2, 0.3] as const;

export interface SweepRow {
  threshold: number;
  /** Questions that would stop for a person, over all questions. */
  stopped: number;
  /** Of those stops: the first suggestion (by P) brings missing evidence; any of them does. */
  useful: number | null;
  any_useful: number | null;
}

/**
 * What each useful threshold would do on this set, from every stop at the gate labelled under the
 * 'always' policy: a stop asks when no short answer stands and a suggestion's P reaches the threshold.
 */
export function usefulSweep(checks: readonly StopCheck[], questions: number): SweepRow[] {
  return USEFUL_SWEEP.map((threshold) => {
    const asked = checks.filter((c) => !c.answerGiven && c.p.some((p) => p >= threshold));
    // offered best P first, as the engine orders them
    const firstUseful = (c: StopCheck) => c.useful[c.p.indexOf(Math.max(...c.p))] ?? false;
    return {
      threshold,
      stopped: questions ? asked.length / questions : 0,
      useful: asked.length ? asked.filter(firstUseful).length / asked.length : null,
      any_useful: asked.length ? asked.filter((c) => c.useful.some(Boolean)).length / asked.length : null,
    };
  });
}
