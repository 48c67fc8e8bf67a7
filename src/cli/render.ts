import { suggestionLabel } from '../engine/suggestion-label.js';
import { shownLine } from '../engine/answer/lines.js';
import type { EngineResult, HopState, Snippet, WrittenTrace } from '../engine/types.js';
import { citationLabel, displaySource, printable } from './format.js';

const STOP_TEXT: Record<EngineResult['stopReason'], string> = {
  answered: 'the evidence answers the question',
  no_new_evidence: 'no new evidence appeared',
  no_bridge: 'no further entity to follow',
  max_hops: 'the hop limit was reached',
  budget: 'the time budget ran out (the last hop is incomplete)',
  low_coherence: 'the next hop is likely wrong, so a person chooses it',
  hop_unsure: 'the next hop looked wrong, so it answers from what it found',
};

const round = (x: number, d = 3) => Math.round(x * 10 ** d) / 10 ** d;

function cite(s: Snippet): string {
  return `${citationLabel(s.citation)} — ${displaySource(s.citation.source)}${s.citation.url ? ` <${s.citation.url}>` : ''}`;
}

/** A quoted line, led by the term of the entry it belongs to when it does not name it (lines.ts shownLine). */
function quoted(s: Pick<Snippet, 'text' | 'citation'>): string {
  const line = shownLine(s);
  return line === s.text ? `"${s.text}"` : `${s.citation.entry!.term} — "${s.text}"`;
}

/** The answer as a person reads it in a terminal: answer, conflicts, the chain, the evidence, suggestions. */
export function renderAnswer(r: EngineResult, k: number): string {
  const a = r.answer;
  const out: string[] = [`Q: ${r.question}`, ''];
  const confidence = `  confidence ${a.confidence.label} (P(right) ${a.confidence.score.toFixed(2)}): ${a.confidence.reasons.join('; ')}`;
  if (a.value === null) {
    out.push(
      a.conflicts.length
        ? 'I could not find a definite answer: the sources read differently (side by side below).'
        : `I could not find a definite answer.${a.leads.length ? ' The closest the evidence comes:' : ''}`,
    );
    for (const s of a.leads) out.push(`  - ${quoted(s)}`, `    ${cite(s)}`);
    out.push(confidence);
  } else {
    out.push(
      `Answer: ${a.value}${a.status === 'conflicting' ? '  (but another source reads differently, below)' : ''}`,
    );
    if (a.sentence) out.push(`  ${a.source ? quoted({ ...a.source, text: a.sentence }) : `"${a.sentence}"`}`);
    if (a.source) out.push(`  ${cite(a.source)}`);
    out.push(confidence);
  }
  if (a.comparison) {
    out.push('', `Compared${a.comparison.attribute ? ` (${a.comparison.attribute.replace('{}', '…')})` : ''}:`);
    for (const o of a.comparison.options) {
      out.push(`  ${o.entity}${o.value ? `: ${o.value}` : ''}`);
      if (o.snippet) out.push(`    "${o.snippet.text}"`, `    ${cite(o.snippet)}`);
    }
  }
  if (a.alternatives.length) {
    out.push('', 'Other readings of the evidence, close behind:');
    for (const alt of a.alternatives) out.push(`  ${alt.value}  ${cite(alt.snippet)}`);
  }
  for (const c of a.conflicts) {
    out.push('', `The sources read ${c.attribute} differently:`);
    for (const v of c.values) out.push(`  ${v.value}  "${v.snippet.text}"`, `    ${cite(v.snippet)}`);
  }
  if (a.chain.length > 1) {
    out.push('', 'Chain of evidence:');
    r.hops.forEach((h, i) => {
      const s = h.snippets[0];
      if (!s) return;
      out.push(`  hop ${i + 1}${h.bridge ? ` (via ${h.bridge})` : ''}: "${s.text}"`, `    ${cite(s)}`);
    });
  }
  if (r.evidence.length) {
    out.push('', 'Evidence:');
    for (const [i, s] of r.evidence.slice(0, k).entries())
      out.push(`  [${i + 1}] ${s.score.toFixed(3)} "${s.text}"`, `      ${cite(s)}`);
  }
  out.push(
    '',
    `Stopped after ${r.hops.length} hop${r.hops.length === 1 ? '' : 's'}: ${STOP_TEXT[r.stopReason]} (${r.timings.totalMs.toFixed(0)} ms${r.incomplete ? '; cut short by the time budget' : ''}).`,
  );
  if (r.suggestions.length) {
    out.push('Suggested next hops (continue with `--continue N` on the same question):');
    for (const [i, s] of r.suggestions.entries()) {
      out.push(
        `  ${i + 1}) ${suggestionLabel(s)}  [score ${s.score.toFixed(2)}, coherence ${s.coherence.cosine.toFixed(2)}, P(right) ${s.coherence.pRight?.toFixed(2) ?? '—'}]  → ${s.query}`,
      );
    }
  }
  return out.join('\n');
}

/** Every hop's state, readably: query, snippets with scores, bridge candidates, next query, coherence, timings. */
export function renderTrace(r: EngineResult): string {
  const out: string[] = ['', '── trace ──'];
  for (const h of r.hops) out.push(...traceHop(h));
  out.push(`stop: ${r.stopReason}; total ${r.timings.totalMs.toFixed(1)} ms`);
  if (r.written) out.push(...traceWritten(r.written));
  return out.join('\n');
}

/** The writer's sentences, each kept or dropped and why, numbered as the evidence list. */
function traceWritten(w: WrittenTrace): string[] {
  const out = [`written by ${w.model} in ${w.ms.toFixed(0)} ms${w.failed ? ` (withdrawn: ${w.failed})` : ''}:`];
  for (const s of w.sentences) {
    const verdict = s.kept ? 'kept' : `dropped (${s.reason ?? 'unchecked'}${s.detail ? `: ${s.detail}` : ''})`;
    const support = s.support === null ? '' : `, support ${s.support.toFixed(2)}`;
    out.push(`  - ${verdict}${support}, cites [${s.citations.join(', ')}]: ${printable(s.text)}`);
  }
  return out;
}

function traceHop(h: HopState): string[] {
  const t = h.timings;
  const out = [
    `hop ${h.hop}${h.incomplete ? ' (INCOMPLETE: over budget)' : ''}  [${h.formedBy}${h.bridge ? `, bridge "${h.bridge}"` : ''}, weight ${h.weight.toFixed(2)}]`,
    `  query: ${h.query}`,
    `  timings: retrieve ${t.retrieveMs.toFixed(1)} ms (encode ${t.encodeMs.toFixed(1)}, dense ${t.denseMs.toFixed(1)}, bm25 ${t.bm25Ms.toFixed(1)}, rerank ${t.rerankMs.toFixed(1)}${t.cached ? ', cached' : ''}), decompose ${t.decomposeMs.toFixed(1)} ms, hop ${t.totalMs.toFixed(1)} ms`,
    `  retrieved ${h.retrieved.length} chunks; top snippets:`,
  ];
  h.snippets.forEach((s, i) => {
    const ref = h.retrieved.find((x) => x.chunkId === s.chunkId);
    const scores = ref
      ? `score ${ref.score.toFixed(3)} = rerank ${ref.rerank.toFixed(3)}, dense ${ref.dense?.toFixed(3) ?? '—'}, bm25 ${ref.bm25?.toFixed(2) ?? '—'}`
      : `score ${s.score.toFixed(3)}`;
    out.push(
      `    ${i + 1}. [${scores}] ${citationLabel(s.citation)}`,
      `       "${s.text.length > 220 ? `${s.text.slice(0, 217)}…` : s.text}"`,
    );
  });
  if (h.candidates.length) {
    out.push('  bridge candidates:');
    for (const c of h.candidates.slice(0, 6)) {
      const f = c.features;
      out.push(
        `    - ${c.entity} (${c.origin}${c.linksTo ? ` → ${c.linksTo}` : ''}) score ${c.score.toFixed(2)}, p ${c.confidence.toFixed(2)} [link ${f.link.toFixed(2)}, lookahead ${f.lookahead.toFixed(2)}, idf ${f.idf.toFixed(2)}, relevance ${f.relevance.toFixed(2)}, question ${f.question}${f.mlm === null ? '' : `, mlm ${f.mlm.toFixed(2)}`}]`,
      );
    }
  }
  if (h.nextQuery) out.push(`  next query: ${h.nextQuery}`);
  if (h.coherence)
    out.push(
      `  coherence: cosine ${h.coherence.cosine.toFixed(3)} (threshold ${h.coherence.threshold}), directional ${h.coherence.directional.toFixed(3)}, drift ${h.coherence.drift.toFixed(3)}; gate P(next hop right) ${h.coherence.pRight === null ? '—' : h.coherence.pRight.toFixed(2)}${h.coherence.gateThreshold === null ? '' : ` (threshold ${h.coherence.gateThreshold.toFixed(2)})`} → ${h.coherence.passed ? 'continue' : 'stop and suggest'}`,
    );
  return out;
}

/** The stable machine-readable shape of `ragask ask --json`. */
export function answerJson(r: EngineResult, k: number) {
  const snippet = (s: Snippet, i?: number) => ({
    ...(i === undefined ? {} : { rank: i + 1 }),
    score: round(s.score),
    snippet: s.text,
    chunk_id: s.chunkId,
    citation: s.citation,
  });
  return {
    question: r.question,
    answer: {
      status: r.answer.status,
      kind: r.answer.kind,
      value: r.answer.value,
      sentence: r.answer.sentence,
      source: r.answer.source ? snippet(r.answer.source) : null,
      span: r.answer.span,
      comparison: r.answer.comparison
        ? {
            attribute: r.answer.comparison.attribute,
            options: r.answer.comparison.options.map((o) => ({
              entity: o.entity,
              value: o.value,
              source: o.snippet ? snippet(o.snippet) : null,
            })),
          }
        : null,
      reading: r.answer.reading,
      confidence: {
        score: round(r.answer.confidence.score),
        label: r.answer.confidence.label,
        reasons: r.answer.confidence.reasons,
      },
      conflicts: r.answer.conflicts.map((c) => ({
        attribute: c.attribute,
        values: c.values.map((v) => ({ value: v.value, ...snippet(v.snippet) })),
      })),
      alternatives: r.answer.alternatives.map((v) => ({ value: v.value, ...snippet(v.snippet) })),
      leads: r.answer.leads.map((s) => snippet(s)),
    },
    chain: r.hops.map((h) => ({
      hop: h.hop,
      bridge: h.bridge,
      snippet: h.snippets[0] ? snippet(h.snippets[0]) : null,
    })),
    evidence: r.evidence.slice(0, k).map((s, i) => snippet(s, i)),
    stop_reason: r.stopReason,
    incomplete: r.incomplete ?? false,
    suggestions: r.suggestions.map((s) => ({
      entity: s.entity,
      query: s.query,
      score: round(s.score),
      coherence: round(s.coherence.cosine),
    })),
    hops: r.hops,
    timings_ms: { total: round(r.timings.totalMs, 1), read: round(r.timings.readMs ?? 0, 1) },
  };
}
