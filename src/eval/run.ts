import type { ProgressReporter } from '../ingest/ingest.js';
import type { EvalDataset, EvalQuestion } from './dataset.js';
import { allSupportAt, containsAnswer, mean, percentile, recallAt } from './metrics.js';

export const MODES = ['bm25', 'dense', 'hybrid', 'multihop'] as const;
export type EvalMode = (typeof MODES)[number];

/** What a mode returns for one question: passages in rank order and the snippets it would cite. */
export interface RankedEvidence {
  passages: string[];
  snippets: string[];
  hops: number;
  /** Multi-hop only: every coherence check of the question's chain, and whether it stopped for a person. */
  coherence?: { checks: { cosine: number; directional: number; passed: boolean; threshold: number }[]; stoppedForPerson: boolean };
}

/** How the hop-to-hop coherence checks went over a run (see BENCHMARKS.md, "Coherence"). */
export interface CoherenceStats {
  checks: number;
  pass_rate: number;
  /** Failed checks whose cosine was under the threshold, and those that failed on direction only. */
  cosine_failures: number;
  directional_failures: number;
  median_cosine: number;
  /** Questions that stopped at a check to offer suggestions. */
  stopped_questions: number;
}

export type Ranker = (q: EvalQuestion, k: number) => Promise<RankedEvidence>;

export interface ModeReport {
  [metric: string]: number | { p50: number; p95: number } | CoherenceStats | undefined;
  mean_hops: number;
  latency_ms: { p50: number; p95: number };
  coherence?: CoherenceStats;
}

export function coherenceStats(rows: readonly RankedEvidence[]): CoherenceStats | undefined {
  const withChecks = rows.filter((r) => r.coherence);
  if (!withChecks.length) return undefined;
  const checks = withChecks.flatMap((r) => r.coherence!.checks);
  const failed = checks.filter((c) => !c.passed);
  return {
    checks: checks.length,
    pass_rate: checks.length ? (checks.length - failed.length) / checks.length : 1,
    cosine_failures: failed.filter((c) => c.cosine < c.threshold).length,
    directional_failures: failed.filter((c) => c.cosine >= c.threshold).length,
    median_cosine: checks.length ? percentile(checks.map((c) => c.cosine), 50) : 0,
    stopped_questions: withChecks.filter((r) => r.coherence!.stoppedForPerson).length,
  };
}

export interface EvalReport {
  dataset: string;
  questions: number;
  modes: Record<string, ModeReport>;
  per_question?: Record<string, { id: string; passages: string[]; ms: number; hops: number }[]>;
}

/** Runs every mode over the questions; recall/all-support at each k, answer-in-evidence@3, hops, latency. */
export async function runEval(
  dataset: EvalDataset,
  rankers: Partial<Record<EvalMode, Ranker>>,
  opts: { modes: readonly EvalMode[]; ks: readonly number[]; limit?: number; progress?: ProgressReporter; keepPerQuestion?: boolean },
): Promise<EvalReport> {
  const questions = dataset.questions.slice(0, opts.limit ?? dataset.questions.length);
  const maxK = Math.max(...opts.ks, 3);
  const report: EvalReport = { dataset: dataset.name, questions: questions.length, modes: {} };
  if (opts.keepPerQuestion) report.per_question = {};
  opts.progress?.start(questions.length * opts.modes.length, 'eval');
  let done = 0;
  for (const mode of opts.modes) {
    const rank = rankers[mode];
    if (!rank) throw new Error(`no ranker for mode ${mode}`);
    const rows: (RankedEvidence & { ms: number; q: EvalQuestion })[] = [];
    // latency is measured warm, as in a running bot: one untimed question first
    if (questions[0]) await rank(questions[0], maxK);
    for (const q of questions) {
      const t0 = performance.now();
      const r = await rank(q, maxK);
      rows.push({ ...r, ms: performance.now() - t0, q });
      opts.progress?.update(++done, `eval ${mode}`);
    }
    const m: ModeReport = {
      mean_hops: 0,
      latency_ms: { p50: 0, p95: 0 },
    };
    for (const k of opts.ks) {
      m[`recall@${k}`] = mean(rows.map((r) => recallAt(r.passages, r.q.supporting, k)));
      m[`all_support@${k}`] = mean(rows.map((r) => allSupportAt(r.passages, r.q.supporting, k)));
    }
    const withAnswers = rows.filter((r) => r.q.answers.length);
    m['answer_in_evidence@3'] = mean(withAnswers.map((r) => (containsAnswer(r.snippets.slice(0, 3).join(' \n '), r.q.answers) ? 1 : 0)));
    m.mean_hops = mean(rows.map((r) => r.hops));
    m.latency_ms = { p50: percentile(rows.map((r) => r.ms), 50), p95: percentile(rows.map((r) => r.ms), 95) };
    const coherence = coherenceStats(rows);
    if (coherence) m.coherence = coherence;
    report.modes[mode] = m;
    if (report.per_question) report.per_question[mode] = rows.map((r) => ({ id: r.q.id, passages: r.passages.slice(0, maxK), ms: r.ms, hops: r.hops }));
  }
  opts.progress?.stop();
  return report;
}

/** One table per mode, as printed by `ragask eval`. */
export function formatReport(r: EvalReport, ks: readonly number[]): string {
  const lines = [`dataset ${r.dataset}: ${r.questions} questions`, ''];
  for (const [mode, m] of Object.entries(r.modes)) {
    lines.push(`mode ${mode}`);
    lines.push(`  ${'k'.padEnd(6)}${'recall@k'.padStart(10)}${'all-support@k'.padStart(15)}`);
    for (const k of ks) lines.push(`  ${String(k).padEnd(6)}${(m[`recall@${k}`] as number).toFixed(3).padStart(10)}${(m[`all_support@${k}`] as number).toFixed(3).padStart(15)}`);
    lines.push(`  answer-in-evidence@3  ${(m['answer_in_evidence@3'] as number).toFixed(3)}`);
    lines.push(`  mean hops             ${m.mean_hops.toFixed(2)}`);
    lines.push(`  latency ms            p50 ${m.latency_ms.p50.toFixed(1)}  p95 ${m.latency_ms.p95.toFixed(1)}`);
    if (m.coherence) {
      const c = m.coherence;
      lines.push(
        `  coherence checks      ${c.checks}, ${(100 * c.pass_rate).toFixed(0)}% passed (median cosine ${c.median_cosine.toFixed(2)}); failed on cosine ${c.cosine_failures}, on direction ${c.directional_failures}; ${c.stopped_questions} questions stopped for a person`,
      );
    }
    lines.push('');
  }
  return lines.join('\n');
}
