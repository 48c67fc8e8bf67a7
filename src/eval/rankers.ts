import { answerFromEvidence, type AnswerDeps } from '../engine/answer/index.js';
import { snippetFrom } from '../engine/snippet.js';
import type { Answer } from '../engine/types.js';
import type { HopEngine } from '../engine/hops.js';
import type { Retriever } from '../engine/retrieve.js';
import { LOCAL } from '../store/access.js';
import type { EvalDataset } from './dataset.js';
import { labelGateChecks } from './gate.js';
import { labelClicks } from './stops.js';
import type { AnsweredEvidence, Ranker } from './run.js';
import { shownReply } from './visible.js';

/** Distinct passages in rank order, with the snippet each was first cited by. */
function distinctPassages(
  dataset: EvalDataset,
  sources: readonly { source: string; snippet: string }[],
): { passages: string[]; snippets: string[] } {
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

/** What eval keeps of an answer: the short answer (null when declined), what was proposed, and its confidence. */
function answerOf(a: Answer): AnsweredEvidence {
  return {
    value: a.value,
    proposed: a.reading?.value ?? null,
    kind: a.reading?.kind ?? 'none',
    p: a.confidence.score,
    label: a.confidence.label,
    features: a.reading?.features ?? null,
  };
}

/**
 * Single-hop retrieval in one mode (bm25, dense or hybrid) as an eval ranker; with `answers`, the
 * reader also reads the answer off that single-hop evidence, as the engine would off its chain.
 */
export function singleHopRanker(
  retriever: Retriever,
  dataset: EvalDataset,
  mode: 'bm25' | 'dense' | 'hybrid',
  answers?: AnswerDeps & { passages: number },
): Ranker {
  return async (q, k) => {
    // Chunks, not passages, are ranked: ask for enough chunks to fill k distinct passages.
    const r = await retriever.retrieve(q.question, {
      k: Math.max(k * 4, 20),
      mode,
      rerankCandidates: Math.max(60, k * 8),
    });
    const evidence = r.candidates.map(snippetFrom);
    const { passages, snippets } = distinctPassages(
      dataset,
      evidence.map((s) => ({ source: s.citation.source, snippet: s.text })),
    );
    if (!answers) return { passages, snippets, hops: 1 };
    const answer = await answerFromEvidence(answers, q.question, [], evidence, 'answered', {
      passages: answers.passages,
    });
    return { passages, snippets, hops: 1, answer: answerOf(answer), readMs: answer.reading?.ms ?? 0 };
  };
}

/**
 * The multi-hop engine as an eval ranker: its final evidence list, exactly what it would cite, and
 * its answer; and, from a second run that measures the gate without obeying it, every gate decision
 * labelled right or wrong (see eval/gate.ts).
 */
export function multiHopRanker(engine: HopEngine, dataset: EvalDataset): Ranker {
  return async (q) => {
    // evaluation reads the whole corpus, as the operator would; the latency is this run's alone
    const r = await engine.run(q.question, LOCAL);
    const shadow = await engine.run(q.question, LOCAL, { gateShadow: true });
    const gate = labelGateChecks(shadow, q.supporting, (source) => dataset.passageOf(source));
    const { passages, snippets } = distinctPassages(
      dataset,
      r.evidence.map((s) => ({ source: s.citation.source, snippet: s.text })),
    );
    const checks = r.hops.flatMap((h) =>
      h.coherence
        ? [
            {
              cosine: h.coherence.cosine,
              directional: h.coherence.directional,
              passed: h.coherence.passed,
              threshold: h.coherence.threshold,
            },
          ]
        : [],
    );
    // measured after the timed run: following suggestions takes hops of its own
    const clicks = await labelClicks(engine, r, q.question, q.supporting, (source) => dataset.passageOf(source));
    return {
      passages,
      snippets,
      hops: r.hops.length,
      coherence: { checks, stoppedForPerson: r.stopReason === 'low_coherence' },
      answer: answerOf(r.answer),
      readMs: r.timings.readMs ?? 0,
      gate,
      ms: r.timings.totalMs,
      shown: shownReply(r),
      clicks,
    };
  };
}
