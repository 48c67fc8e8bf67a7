import type { ProgressReporter } from '../progress.js';
import { isUnanswerable, type EvalDataset, type EvalQuestion } from './dataset.js';
import { HIGH_CONFIDENCE } from '../engine/answer/confidence.js';
import { gateStats, type GateCheck, type GateStats } from './gate.js';
import { clickStats, usefulSweep, type ClickLabels, type SweepRow } from './stops.js';
import { answerRight, visibleAt, type ShownReply } from './visible.js';
import { allSupportAt, containsAnswer, isYesNo, mean, percentile, recallAt, scoreAnswer } from './metrics.js';
import type { ReadingFeatures } from '../engine/answer/features.js';
import { reliability, type ReliabilityBin } from './fit.js';

export const MODES = ['bm25', 'dense', 'hybrid', 'multihop'] as const;
export type EvalMode = (typeof MODES)[number];

/** What a mode returns for one question: passages in rank order and the snippets it would cite. */
export interface RankedEvidence {
  passages: string[];
  snippets: string[];
  hops: number;
  /** Multi-hop only: every coherence check of the question's chain, and whether it stopped for a person. */
  coherence?: {
    checks: { cosine: number; directional: number; passed: boolean; threshold: number }[];
    stoppedForPerson: boolean;
  };
  /** The answer read off this evidence (modes that read one). */
  answer?: AnsweredEvidence;
  /** The reader's share of the time. */
  readMs?: number;
  /** The question's own time, where the ranker does more than answer it (multihop's measuring run). */
  ms?: number;
  /** Multi-hop only: every gate decision, labelled by whether its next hop was right. */
  gate?: GateCheck[];
  /** What a person reads of the reply (modes that make one). */
  shown?: ShownReply;
  /** Multi-hop only: its bridges and suggestions, each labelled by whether it brings missing evidence (eval/stops.ts). */
  clicks?: ClickLabels;
}

/** What a person sees of the replies, over questions (see eval/visible.ts). */
export interface VisibleStats {
  questions: number;
  /** The gold answer in the short answer or the first sentence shown. */
  'visible@1': number;
  /** The same over the first three sentences shown. */
  'visible@3': number;
  /** A short answer given, and right. */
  answered_right: number;
  /**
   * A short answer given, and wrong: over all questions, unanswerable ones included (any short answer
   * to one of those is wrong): the worst outcome.
   */
  wrong_answers: number;
  /** Of the unanswerable questions (answer in no document), the share given a short answer (null: none asked). */
  wrong_on_unanswerable?: number | null;
  /** Of the short answers given, the share that is wrong. */
  wrong_of_given: number;
  stopped_for_person: number;
  /** Of the replies that stop for a person: the first suggestion brings a missing supporting passage (null: no stops). */
  useful_stops?: number | null;
  /** The same, for any of the suggestions. */
  any_useful_stops?: number | null;
  /** Bridges that bring a missing supporting passage, over all the replies took or offered. */
  right_bridges?: number | null;
  /** Hops per question and the question's p95 time (ms), for a question type's cost. */
  mean_hops?: number;
  latency_p95_ms?: number;
}

export interface AnsweredEvidence {
  /** The short answer; null when declined (below the confidence threshold) or none was read. */
  value: string | null;
  /** What the reader proposed, declined or not, and its calibrated P(right). */
  proposed: string | null;
  kind: 'span' | 'yes' | 'no' | 'none';
  p: number;
  label: 'high' | 'medium' | 'low';
  features: ReadingFeatures | null;
}

/** Answer quality of a mode, against the gold answers (HotpotQA normalisation). */
export interface AnswerStats {
  answer_em: number;
  answer_f1: number;
  answered: number;
  answer_em_answered: number;
  answer_f1_answered: number;
  /** EM/F1 of what the reader proposed, declined or not: the reader's quality apart from the decline. */
  proposed_em: number;
  proposed_f1: number;
  /** What the reader proposed is right as a person judges a short answer (eval/visible.ts answerRight). */
  proposed_right: number;
  ece: number;
  high_answers: number;
  high_precision: number;
  reliability: ReliabilityBin[];
  reader_ms: { p50: number; p95: number };
}

/** How the hop-to-hop coherence checks went over a run (see docs/benchmarks-history.md, "Coherence"). */
export interface CoherenceStats {
  checks: number;
  pass_rate: number;
  /** Failed checks whose cosine was under the threshold. */
  cosine_failures: number;
  /** Failed checks that passed the cosine and failed on the gate. */
  gate_failures: number;
  median_cosine: number;
  /** Questions that stopped at a check to offer suggestions. */
  stopped_questions: number;
}

export type Ranker = (q: EvalQuestion, k: number) => Promise<RankedEvidence>;

export interface ModeReport {
  [metric: string]:
    | number
    | null
    | { p50: number; p95: number }
    | CoherenceStats
    | AnswerStats
    | GateStats
    | Record<string, VisibleStats>
    | SweepRow[]
    | undefined;
  mean_hops: number;
  latency_ms: { p50: number; p95: number };
  coherence?: CoherenceStats;
  answers?: AnswerStats;
  gate?: GateStats;
  /** The visible figures per question type, where the dataset has types. */
  by_type?: Record<string, VisibleStats>;
  /** What each useful threshold would do: stops and their usefulness, from every stop at the gate (eval/stops.ts). */
  stop_sweep?: SweepRow[];
}

/** Visible figures of replies; undefined when no row has a reply. */
function visibleStats(
  rows: readonly {
    shown?: ShownReply;
    clicks?: ClickLabels;
    hops: number;
    ms: number;
    q: Pick<EvalQuestion, 'answers' | 'supporting'>;
  }[],
): VisibleStats | undefined {
  const scored = rows.filter((r) => r.shown && r.q.answers.length);
  const unanswerable = rows.filter((r) => r.shown && isUnanswerable(r.q));
  if (!scored.length && !unanswerable.length) return undefined;
  const given = scored.filter((r) => r.shown!.value !== null);
  const right = given.filter((r) => answerRight(r.shown!.value, r.q.answers));
  const givenUnanswerable = unanswerable.filter((r) => r.shown!.value !== null).length;
  const wrong = given.length - right.length + givenUnanswerable;
  const shareOf = (n: number, of: number) => (of ? n / of : 0);
  return {
    questions: scored.length + unanswerable.length,
    'visible@1': mean(scored.map((r) => (visibleAt(r.shown!, r.q.answers, 1) ? 1 : 0))),
    'visible@3': mean(scored.map((r) => (visibleAt(r.shown!, r.q.answers, 3) ? 1 : 0))),
    answered_right: shareOf(right.length, scored.length),
    wrong_answers: shareOf(wrong, scored.length + unanswerable.length),
    wrong_of_given: shareOf(wrong, given.length + givenUnanswerable),
    wrong_on_unanswerable: unanswerable.length ? givenUnanswerable / unanswerable.length : null,
    stopped_for_person: mean(scored.map((r) => (r.shown!.stoppedForPerson ? 1 : 0))),
    ...withoutCount(clickStats(scored)),
    mean_hops: mean(rows.map((r) => r.hops)),
    latency_p95_ms: percentile(
      rows.map((r) => r.ms),
      95,
    ),
  };
}

/** The click figures without their bridge count (VisibleStats keeps shares only). */
function withoutCount(
  s: ReturnType<typeof clickStats>,
): Pick<VisibleStats, 'useful_stops' | 'any_useful_stops' | 'right_bridges'> {
  if (!s) return {};
  const { bridges: _n, ...shares } = s;
  return shares;
}

/** EM/F1 with declined answers at 0, the same on answered ones, ECE of P(right) against EM, precision of "high". */
export function answerStats(
  rows: readonly { answer?: AnsweredEvidence; readMs?: number; q: { answers: string[] } }[],
): AnswerStats | undefined {
  const scored = rows.filter((r) => r.answer && r.q.answers.length);
  if (!scored.length) return undefined;
  const given = scored.map((r) => ({
    ...scoreAnswer(r.answer!.value, r.q.answers),
    answered: r.answer!.value !== null,
    label: r.answer!.label,
  }));
  const answered = given.filter((g) => g.answered);
  // calibration is of what was proposed: P(right) of the proposal against whether it is right
  // (answerRight: exact, or the gold answer as whole words in a short answer), declined or not
  const proposed = scored.map((r) => scoreAnswer(r.answer!.proposed, r.q.answers));
  const proposedEm = proposed.map((x) => x.em);
  const proposedRight = scored.map((r) => (answerRight(r.answer!.proposed, r.q.answers) ? 1 : 0));
  const rel = reliability(
    scored.map((r) => r.answer!.p),
    proposedRight,
  );
  const high = scored
    .map((r) => ({
      high: r.answer!.p >= HIGH_CONFIDENCE && r.answer!.value !== null,
      right: answerRight(r.answer!.value, r.q.answers) ? 1 : 0,
    }))
    .filter((x) => x.high);
  const ms = rows.map((r) => r.readMs ?? 0).filter((x) => x > 0);
  return {
    answer_em: mean(given.map((g) => g.em)),
    answer_f1: mean(given.map((g) => g.f1)),
    answered: answered.length / given.length,
    answer_em_answered: mean(answered.map((g) => g.em)),
    answer_f1_answered: mean(answered.map((g) => g.f1)),
    proposed_em: mean(proposedEm),
    proposed_f1: mean(proposed.map((x) => x.f1)),
    proposed_right: mean(proposedRight),
    ece: rel.ece,
    high_answers: high.length,
    high_precision: high.length ? mean(high.map((h) => h.right)) : 0,
    reliability: rel.bins,
    reader_ms: { p50: percentile(ms, 50), p95: percentile(ms, 95) },
  };
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
    gate_failures: failed.filter((c) => c.cosine >= c.threshold).length,
    median_cosine: checks.length
      ? percentile(
          checks.map((c) => c.cosine),
          50,
        )
      : 0,
    stopped_questions: withChecks.filter((r) => r.coherence!.stoppedForPerson).length,
  };
}

export interface EvalReport {
  dataset: string;
  questions: number;
  /** The reader that read the answers (`ragask eval` records it). */
  reader?: string;
  modes: Record<string, ModeReport>;
  per_question?: Record<
    string,
    {
      id: string;
      question: string;
      type: string | null;
      passages: string[];
      ms: number;
      hops: number;
      answer?: AnsweredEvidence;
      shown?: ShownReply;
      clicks?: ClickLabels;
      gold: string[];
    }[]
  >;
}

type EvalRow = RankedEvidence & { ms: number; q: EvalQuestion };

/** Runs every mode over the questions; recall/all-support at each k, answer-in-evidence@3, hops, latency. */
export async function runEval(
  dataset: EvalDataset,
  rankers: Partial<Record<EvalMode, Ranker>>,
  opts: {
    modes: readonly EvalMode[];
    ks: readonly number[];
    limit?: number;
    progress?: ProgressReporter;
    keepPerQuestion?: boolean;
  },
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
    const rows: EvalRow[] = [];
    // latency is measured warm, as in a running bot: one untimed question first
    if (questions[0]) await rank(questions[0], maxK);
    for (const q of questions) {
      const t0 = performance.now();
      const r = await rank(q, maxK);
      rows.push({ ...r, ms: r.ms ?? performance.now() - t0, q });
      opts.progress?.update(++done, `eval ${mode}`);
    }
    report.modes[mode] = modeReport(rows, opts.ks);
    if (report.per_question) report.per_question[mode] = rows.map((r) => perQuestion(r, maxK));
  }
  opts.progress?.stop();
  return report;
}

/** One mode's figures over its questions' rows. */
function modeReport(rows: readonly EvalRow[], ks: readonly number[]): ModeReport {
  const m: ModeReport = { mean_hops: 0, latency_ms: { p50: 0, p95: 0 } };
  // retrieval is measured where there is something to find: unanswerable questions have no supporting passage
  const findable = rows.filter((r) => r.q.supporting.length);
  for (const k of ks) {
    m[`recall@${k}`] = mean(findable.map((r) => recallAt(r.passages, r.q.supporting, k)));
    m[`all_support@${k}`] = mean(findable.map((r) => allSupportAt(r.passages, r.q.supporting, k)));
  }
  const withAnswers = rows.filter((r) => r.q.answers.length);
  const inEvidence = (r: EvalRow) => (containsAnswer(r.snippets.slice(0, 3).join(' \n '), r.q.answers) ? 1 : 0);
  m['answer_in_evidence@3'] = mean(withAnswers.map(inEvidence));
  // yes/no answers never stand in a passage: the span figure leaves them out
  m['answer_in_evidence@3_span'] = mean(withAnswers.filter((r) => !isYesNo(r.q.answers)).map(inEvidence));
  const answers = answerStats(rows);
  if (answers) {
    const { reliability: _bins, reader_ms: _ms, ...flat } = answers;
    Object.assign(m, flat);
    m.answers = answers;
  }
  m.mean_hops = mean(rows.map((r) => r.hops));
  const ms = rows.map((r) => r.ms);
  m.latency_ms = { p50: percentile(ms, 50), p95: percentile(ms, 95) };
  const coherence = coherenceStats(rows);
  if (coherence) m.coherence = coherence;
  if (rows.some((r) => r.gate)) m.gate = gateStats(rows.flatMap((r) => r.gate ?? []));
  Object.assign(m, visibleFigures(rows));
  if (rows.some((r) => r.clicks))
    m.stop_sweep = usefulSweep(
      rows.flatMap((r) => (r.clicks?.stop ? [r.clicks.stop] : [])),
      rows.length,
    );
  return m;
}

/** What a person reads first, overall and by question type (nothing when no question was answered visibly). */
function visibleFigures(rows: readonly EvalRow[]): Partial<ModeReport> {
  const visible = visibleStats(rows);
  if (!visible) return {};
  const { questions: _n, mean_hops: _h, latency_p95_ms: _l, ...flat } = visible;
  const types = [...new Set(rows.map((r) => r.q.type).filter((t): t is string => !!t))].sort();
  if (!types.length) return flat;
  return {
    ...flat,
    by_type: Object.fromEntries(types.map((t) => [t, visibleStats(rows.filter((r) => r.q.type === t))!])),
  };
}

/** One question's row of the report's per_question (--json). */
function perQuestion(r: EvalRow, maxK: number) {
  return {
    id: r.q.id,
    question: r.q.question,
    type: r.q.type,
    passages: r.passages.slice(0, maxK),
    ms: r.ms,
    hops: r.hops,
    gold: r.q.answers,
    ...(r.answer ? { answer: r.answer } : {}),
    ...(r.shown ? { shown: r.shown } : {}),
    ...(r.clicks ? { clicks: r.clicks } : {}),
  };
}
