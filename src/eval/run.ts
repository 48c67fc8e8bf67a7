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
}

export type Ranker = (q: EvalQuestion, k: number) => Promise<RankedEvidence>;

export interface ModeReport {
  [metric: string]: number | { p50: number; p95: number };
  mean_hops: number;
  latency_ms: { p50: number; p95: number };
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
    const rows: { passages: string[]; snippets: string[]; ms: number; hops: number; q: EvalQuestion }[] = [];
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
    lines.push('');
  }
  return lines.join('\n');
}
