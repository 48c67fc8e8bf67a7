import { analyze } from '../../models/nlp.js';
import type { Answer, HopState, Snippet, StopReason } from '../types.js';
import type { LogisticModel } from '../logistic.js';
import { CALIBRATION } from './calibration.fitted.js';
import { ANSWER_THRESHOLD, answerProbability, labelOf } from './confidence.js';
import type { EvidencePassage } from './passages.js';
import type { LineCandidate } from './lines.js';
import type { Reading } from './reading.js';

/** The sentence of `text` around [start, end) (a table row, as the chunker writes it, is one). */
export function sentenceAround(text: string, start: number, end: number): { text: string; start: number; end: number } {
  if (start < 0) return { text: '', start: -1, end: -1 };
  for (const s of analyze(text).sentences) {
    if (s.start <= start && end <= s.end + 1)
      return { text: text.slice(s.start, s.end).trim(), start: s.start, end: s.end };
  }
  // a span across a sentence break: the sentences it touches
  const touched = analyze(text).sentences.filter((s) => s.end > start && s.start < end);
  if (touched.length) {
    const a = touched[0]!.start;
    const b = touched[touched.length - 1]!.end;
    return { text: text.slice(a, b).trim(), start: a, end: b };
  }
  return { text: text.slice(start, end), start, end };
}

/** A passage's snippet narrowed to one sentence of it (the citation stays the passage's). */
function citedSentence(p: EvidencePassage, start: number, end: number): Snippet {
  const s = sentenceAround(p.text, start, end);
  return { ...p.snippet, text: s.text || p.snippet.text };
}

/** The sentence a passage opens with: what a yes/no reading of it rests on, when no span is read. */
function leadSentence(p: EvidencePassage): Snippet {
  const first = analyze(p.text).sentences[0];
  return { ...p.snippet, text: first ? p.text.slice(first.start, first.end).trim() : p.snippet.text };
}

const STOP_REASONS: Partial<Record<StopReason, string>> = {
  low_coherence: 'the chain stopped before its next hop, for a person to choose it',
  hop_unsure: 'the next hop looked wrong, so the chain stopped with the evidence it has',
  budget: 'the time budget cut the chain short',
};

/** The answer's reasons say why the chain stopped: rewritten when the stop is decided after reading. */
export function restateStop(answer: Answer, from: StopReason, to: StopReason): void {
  const was = STOP_REASONS[from];
  const now = STOP_REASONS[to];
  const at = was ? answer.confidence.reasons.indexOf(was) : -1;
  if (at < 0) return;
  if (now) answer.confidence.reasons[at] = now;
  else answer.confidence.reasons.splice(at, 1);
}

function reasonsOf(r: Reading, stopReason: StopReason, p: number): string[] {
  const f = r.features;
  const out: string[] = [];
  const where = r.passage ? ` in "${r.passage.snippet.citation.document}"` : '';
  if (r.comparison?.attribute) {
    out.push(
      `compared ${r.comparison.options.map((o) => `${o.entity}: ${o.value ?? 'not found'}`).join(' vs ')} (${r.comparison.attribute.replace('{}', '…')})`,
    );
  } else if (r.comparison) {
    out.push(
      `read ${r.comparison.options.map((o) => `"${o.passage?.snippet.citation.document ?? o.entity}"`).join(' and ')} side by side`,
    );
  }
  if (r.kind === 'none') out.push('the reader found no answer in the evidence');
  else
    out.push(
      `the reader reads ${r.kind === 'span' ? `"${r.value}"` : r.kind}${where} (P(answer here) ${f.pAnswer.toFixed(2)})`,
    );
  if (f.agreement > 0) out.push(`${f.agreement} more passage${f.agreement === 1 ? '' : 's'} read the same`);
  if (r.rivals.length) out.push(`another source reads ${r.rivals.map((x) => `"${x.value}"`).join(' or ')}`);
  if (r.kind !== 'none' && !f.confirmed)
    out.push(`found through a bridge the engine chose (chain confidence ${f.weight.toFixed(2)})`);
  const stop = STOP_REASONS[stopReason];
  if (stop) out.push(stop);
  out.push(`calibrated P(right) ${p.toFixed(2)}${p < ANSWER_THRESHOLD ? ', too low for a short answer' : ''}`);
  return out;
}

/** How many sentences a declined answer offers as the closest the evidence comes. */
const LEADS = 3;
/**
 * How many of them come from the reader's spans; the rest are the top of the evidence. Measured on
 * teamdocs-apache (visible@3, with its sentence split fixed): 1 (the old leads) 0.550, 2 0.617, 3 0.583.
 */
const READER_LEADS = 2;

/**
 * The closest the evidence comes, most likely answer-bearing first: the sentence of the reader's
 * best span, then of its next best span in another sentence (or the other source of a conflict),
 * then the top of the evidence (a passage already quoted is not repeated whole).
 */
function closestLeads(
  reading: Reading,
  source: Snippet | null,
  conflicts: Answer['conflicts'],
  passages: readonly EvidencePassage[],
  evidence: readonly Snippet[],
  ranked: readonly LineCandidate[] | null,
): Snippet[] {
  if (ranked?.length) return ranked.slice(0, LEADS).map((c) => c.snippet);
  // each next best span's sentence is found (a sentence split of its passage) only until the reader's leads are full
  function* sentences(): Generator<Snippet | null> {
    yield source;
    for (const x of reading.nextBest ?? []) yield citedSentence(x.passage, x.start, x.end);
    for (const c of conflicts) for (const v of c.values) yield v.snippet;
  }
  const leads: Snippet[] = [];
  const quoted = new Set<string>();
  const chunks = new Set<number>();
  for (const s of sentences()) {
    if (leads.length >= READER_LEADS) break;
    if (!s || quoted.has(s.text)) continue;
    quoted.add(s.text);
    chunks.add(s.chunkId);
    leads.push(s);
  }
  for (const s of [...passages.map((x) => x.snippet), ...evidence]) {
    if (chunks.has(s.chunkId) || leads.length >= LEADS) continue;
    chunks.add(s.chunkId);
    leads.push(s);
  }
  return leads;
}

/**
 * The answer a person reads: the short answer exactly as the evidence says it, the sentence it
 * comes from and its citation, with a calibrated probability that it is right. Below
 * ANSWER_THRESHOLD there is no short answer: "I could not find a definite answer", with the
 * sentences that come closest, cited. Sources that read differently are shown side by side.
 */
export function composeAnswer(
  hops: readonly HopState[],
  evidence: readonly Snippet[],
  passages: readonly EvidencePassage[],
  reading: Reading,
  stopReason: StopReason,
  model: LogisticModel = CALIBRATION.model,
  ranked: readonly LineCandidate[] | null = null,
): Answer {
  const chain = hops.map((h) => h.snippets[0]).filter((s): s is Snippet => !!s);
  const p = answerProbability(reading.features, model);
  const label = labelOf(p);
  const reasons = reasonsOf(reading, stopReason, p);
  const at =
    reading.passage && reading.start >= 0
      ? { chunkId: reading.passage.snippet.chunkId, start: reading.start, end: reading.end }
      : null;
  const proposal = {
    kind: reading.kind,
    value: reading.value,
    at,
    features: reading.features,
    ms: Math.round(reading.ms * 10) / 10,
  };
  const source = reading.passage ? sentenceOf(reading.passage, reading.start, reading.end) : null;
  const conflicts = conflictsOf(reading, source);
  const comparison = comparisonOf(reading);
  const answered = reading.value !== null && p >= ANSWER_THRESHOLD;
  if (!answered) {
    return {
      status: conflicts.length ? 'conflicting' : 'insufficient',
      kind: null,
      value: null,
      sentence: null,
      source: null,
      span: null,
      chain,
      confidence: { score: p, label, reasons },
      conflicts,
      alternatives: [],
      leads: closestLeads(reading, source, conflicts, passages, evidence, ranked),
      comparison,
      reading: proposal,
    };
  }
  return {
    status: conflicts.length ? 'conflicting' : 'answered',
    kind: reading.kind === 'none' ? null : reading.kind,
    value: reading.value,
    sentence: source?.text ?? null,
    source,
    span: at,
    chain,
    confidence: { score: p, label, reasons },
    conflicts,
    alternatives: [],
    leads: [],
    comparison,
    reading: proposal,
  };
}

/** The sentence a reading's span stands in, or its passage's lead when it read no span (start -1). */
function sentenceOf(passage: EvidencePassage, start: number, end: number): Snippet {
  return start >= 0 ? citedSentence(passage, start, end) : leadSentence(passage);
}

/** The reading's value beside the rival values read elsewhere in the evidence, each with its sentence. */
function conflictsOf(reading: Reading, source: Snippet | null): Answer['conflicts'] {
  if (!reading.value || !reading.passage || !reading.rivals.length) return [];
  return [
    {
      attribute: 'the answer',
      values: [
        { value: reading.value, snippet: source! },
        ...reading.rivals.map((x) => ({ value: x.value, snippet: citedSentence(x.passage, x.start, x.end) })),
      ],
    },
  ];
}

/** A comparison's options, each value with the sentence it was read from. */
function comparisonOf(reading: Reading): Answer['comparison'] {
  if (!reading.comparison) return null;
  return {
    attribute: reading.comparison.attribute,
    options: reading.comparison.options.map((o) => ({
      entity: o.entity,
      value: o.value,
      snippet: o.passage ? sentenceOf(o.passage, o.start, o.end) : null,
    })),
  };
}

/**
 * The answer of a stored result seen from a context that may not see all of its evidence: the
 * reading rested on passages read together, so no part of it is kept; only the visible evidence
 * is offered, as leads.
 */
export function withheldAnswer(hops: readonly HopState[], evidence: readonly Snippet[]): Answer {
  return {
    status: 'insufficient',
    kind: null,
    value: null,
    sentence: null,
    source: null,
    span: null,
    chain: hops.map((h) => h.snippets[0]).filter((s): s is Snippet => !!s),
    confidence: {
      score: 0,
      label: 'low',
      reasons: [
        'the answer rested on sources this conversation cannot see; ask again here for an answer from what it can see',
      ],
    },
    conflicts: [],
    alternatives: [],
    leads: evidence.slice(0, 3),
    comparison: null,
    reading: null,
  };
}

/** The answer when nothing was retrieved at all. */
export function noEvidenceAnswer(): Answer {
  return { ...withheldAnswer([], []), confidence: { score: 0, label: 'low', reasons: ['no evidence found'] } };
}
