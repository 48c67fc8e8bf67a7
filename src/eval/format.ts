import type { EvalReport, VisibleStats, ModeReport } from './run.js';
import { formatReliability } from './fit.js';

/** One table per mode, as printed by `ragask eval`. */
export function formatReport(r: EvalReport, ks: readonly number[]): string {
  const lines = [`dataset ${r.dataset}: ${r.questions} questions`, ''];
  for (const [mode, m] of Object.entries(r.modes)) {
    lines.push(`mode ${mode}`);
    lines.push(`  ${'k'.padEnd(6)}${'recall@k'.padStart(10)}${'all-support@k'.padStart(15)}`);
    for (const k of ks)
      lines.push(
        `  ${String(k).padEnd(6)}${(m[`recall@${k}`] as number).toFixed(3).padStart(10)}${(m[`all_support@${k}`] as number).toFixed(3).padStart(15)}`,
      );
    lines.push(
      `  answer-in-evidence@3  ${(m['answer_in_evidence@3'] as number).toFixed(3)}  (span answers only: ${(m['answer_in_evidence@3_span'] as number).toFixed(3)})`,
    );
    if (m.answers) {
      const a = m.answers;
      lines.push(`  answer EM / F1        ${a.answer_em.toFixed(3)} / ${a.answer_f1.toFixed(3)}  (declined = 0)`);
      lines.push(
        `  answered              ${a.answered.toFixed(3)}; on those EM / F1 ${a.answer_em_answered.toFixed(3)} / ${a.answer_f1_answered.toFixed(3)}`,
      );
      lines.push(
        `  proposed EM / F1      ${a.proposed_em.toFixed(3)} / ${a.proposed_f1.toFixed(3)}; right ${a.proposed_right.toFixed(3)}  (what the reader read, declined or not)`,
      );
      lines.push(
        `  confidence            ECE ${a.ece.toFixed(3)}; high ${a.high_answers} answers, ${(100 * a.high_precision).toFixed(0)}% right; reader p50 ${a.reader_ms.p50.toFixed(1)} ms, p95 ${a.reader_ms.p95.toFixed(1)} ms`,
      );
      lines.push(
        '  reliability (P(right) of the proposed answer against whether it is right):',
        ...formatReliability(a.reliability, '    '),
      );
    }
    lines.push(`  mean hops             ${m.mean_hops.toFixed(2)}`);
    lines.push(`  latency ms            p50 ${m.latency_ms.p50.toFixed(1)}  p95 ${m.latency_ms.p95.toFixed(1)}`);
    if (m['visible@1'] !== undefined) {
      const row = (name: string, v: VisibleStats | ModeReport, hops: number, p95: number) =>
        `  ${name.padEnd(22)}${[v['visible@1'], v['visible@3'], v.answered_right, v.wrong_answers, v.stopped_for_person, hops].map((x) => (x as number).toFixed(3).padStart(10)).join('')}${p95.toFixed(0).padStart(8)}`;
      lines.push(
        `  ${'what a person sees'.padEnd(22)}${['visible@1', 'visible@3', 'right', 'wrong', 'stopped', 'hops'].map((x) => x.padStart(10)).join('')}${'p95 ms'.padStart(8)}`,
      );
      lines.push(row('all', m, m.mean_hops, m.latency_ms.p95));
      for (const [t, v] of Object.entries(m.by_type ?? {}))
        lines.push(row(`${t} (${v.questions})`, v, v.mean_hops ?? 0, v.latency_p95_ms ?? 0));
      lines.push(
        `  (right / wrong: a short answer given and right / wrong, over all questions; stopped: the reply stops for a person with suggestions)`,
      );
      if (typeof m.wrong_on_unanswerable === 'number')
        lines.push(
          `  wrong on unanswerable ${m.wrong_on_unanswerable.toFixed(3)}  (unanswerable questions given a short answer; counted in wrong above)`,
        );
      const share = (x: number | null | undefined) => (x === null || x === undefined ? '—' : x.toFixed(3));
      if (m.useful_stops !== undefined)
        lines.push(
          `  hops worth a click    useful stops ${share(m.useful_stops as number | null)}, any useful ${share(m.any_useful_stops as number | null)}, right bridges ${share(m.right_bridges as number | null)}`,
        );
    }
    if (m.stop_sweep) {
      lines.push(`  useful threshold      ${m.stop_sweep.map((s) => String(s.threshold).padStart(7)).join('')}`);
      lines.push(`    stopped             ${m.stop_sweep.map((s) => s.stopped.toFixed(3).padStart(7)).join('')}`);
      lines.push(
        `    first useful        ${m.stop_sweep.map((s) => (s.useful === null ? '—' : s.useful.toFixed(3)).padStart(7)).join('')}`,
      );
      lines.push(
        `    any useful          ${m.stop_sweep.map((s) => (s.any_useful === null ? '—' : s.any_useful.toFixed(3)).padStart(7)).join('')}`,
      );
    }
    if (m.gate) {
      const g = m.gate;
      const pct = (a: number, b: number) => (b ? `${((100 * a) / b).toFixed(0)}%` : '—');
      lines.push(
        `  hop gate              stopped ${g.stopped_wrong} of ${g.wrong_bridge_hops} wrong-bridge hops (${pct(g.stopped_wrong, g.wrong_bridge_hops)}) and ${g.stopped_right} of ${g.right_bridge_hops} right ones (${pct(g.stopped_right, g.right_bridge_hops)})`,
      );
    }
    if (m.coherence) {
      const c = m.coherence;
      lines.push(
        `  coherence checks      ${c.checks}, ${(100 * c.pass_rate).toFixed(0)}% passed (median cosine ${c.median_cosine.toFixed(2)}); failed on cosine ${c.cosine_failures}, on the gate ${c.gate_failures}; ${c.stopped_questions} questions stopped for a person`,
      );
    }
    lines.push('');
  }
  return lines.join('\n');
}
