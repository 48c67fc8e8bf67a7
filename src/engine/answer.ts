import { analyze, type Analysis } from '../models/nlp.js';
import { findSlot } from './decompose.js';
import { contentTerms, coverage, termSet } from './text.js';
import type { Answer, Conflict, HopState, Snippet, StopReason } from './types.js';

/** Share of the question's content words that the evidence text contains. */
export function evidenceCoverage(_qa: Analysis, question: string, evidenceText: string): number {
  return coverage(contentTerms(question), termSet(evidenceText));
}

// Longer units first: "90 seconds" must not stop at "90 s".
// not the digits of a part code ("FC-3", "PM2.5"): no letter, digit or joiner right before
const NUMBER = /(?<![\p{L}\p{N}.\-−])[+\-−±]?\d+(?:[.,]\d+)*(?:\s?(?:°\s?[CF]|%|seconds?|minutes?|hours?|days?|weeks?|months?|years?|kbit\/s|µg\/m³|mg\/L|MHz|GHz|kHz|Hz|dBm|dB|kWh|kW|mA|µA|PSU|km|cm|mm|min|[µm]?[sgLVAW]|h)\b)?/gu;
const canonicalNumber = (s: string) => s.replace(/[−–]/g, '-').replace(/\s+/g, '').replace(/,/g, '.').toLowerCase();

function sentencesOfSnippet(s: Snippet): string[] {
  const text = s.text.replace(/^…|…$/g, '');
  // a table row ("Name: …; Office: …") is one statement: never split it into cells
  if (tableCells(text)) return [text];
  return text.split(/(?<=[.!?])\s+(?=[A-Z0-9"'(])/).map((x) => x.trim()).filter(Boolean);
}

interface TableCell {
  header: string;
  value: string;
}

/** "Temperature: -20 °C; Offset: +0.35 °C" → cells, as the chunker writes table rows. */
function tableCells(text: string): TableCell[] | null {
  const parts = text.replace(/^…|…$/g, '').split(/;\s+/);
  const cells = parts.map((p) => /^([^:]{1,60}):\s+(.+)$/.exec(p)).filter((m): m is RegExpExecArray => !!m);
  if (cells.length < 2 || cells.length !== parts.length) return null;
  return cells.map((m) => ({ header: m[1]!.trim(), value: m[2]!.trim() }));
}

/** The signed figures of a text, as numbers in canonical form ("−20 °C" → "-20", "35 PSU" → "35"). */
function figures(text: string): Set<string> {
  const out = new Set<string>();
  for (const m of text.matchAll(NUMBER)) {
    const n = /[+\-−]?\d+(?:[.,]\d+)?/.exec(m[0]);
    if (n) out.add(String(Number(n[0].replace('−', '-').replace(',', '.'))));
  }
  return out;
}

const DURATION_NOUNS = new Set(['interval', 'period', 'duration', 'time', 'lifetime', 'life', 'duration']);
const DURATION_UNIT = /\b(seconds?|minutes?|hours?|days?|weeks?|months?|years?|s|min|h|ms)\b/i;
const QUANTITY_NOUNS = new Set(
  'offset version band range factor interval time rate number value temperature frequency size limit date year duration voltage current power capacity speed distance length weight height depth price cost count percentage level threshold population amount period accuracy resolution'.split(' '),
);
const PLACE_NOUNS = new Set('city office country site town place state region county location lab'.split(' '));
const PERSON_NOUNS = new Set('person engineer lead manager director author owner leader contact approver'.split(' '));

/**
 * What a question asks for, from its wh-word and the head noun of the phrase after it ("Which
 * calibration offset …" → offset → a quantity; "In which office …" → a place; "Who …" → a person).
 */
export function expectedType(question: string, qa: Analysis = analyze(question)): 'person' | 'quantity' | 'place' | 'any' {
  return askedFor(question, qa).type;
}

/** The expected answer type and the head noun it came from ("offset"), if any. */
export function askedFor(question: string, qa: Analysis = analyze(question)): { type: 'person' | 'quantity' | 'place' | 'any'; head: string | null } {
  const q = question.trim().toLowerCase();
  if (/\bhow (long|often)\b/.test(q)) return { type: 'quantity', head: 'duration' };
  if (/^(how (many|much|far|old|big|high|fast|large|heavy|early|late))\b/.test(q) || /\bhow (many|much)\b/.test(q)) return { type: 'quantity', head: null };
  const toks = qa.tokens;
  const wh = toks.findIndex((t) => /^(which|what|whose)$/i.test(t.text));
  if (wh >= 0) {
    // The head of the phrase after the wh-word: the last known noun within four words (POS tags alone
    // are not trusted here: "offset" is often tagged as a verb).
    let head: string | null = null;
    // "What is the operating temperature range …": skip the copula and determiner after the wh-word
    let from = wh + 1;
    while (from < toks.length && (/^(is|are|was|were|'s)$/i.test(toks[from]!.text) || toks[from]!.pos === 'DET')) from++;
    for (let i = from; i < Math.min(toks.length, from + 5); i++) {
      const t = toks[i]!;
      if (t.pos === 'AUX' || t.pos === 'ADP' || t.pos === 'PUNCT' || t.pos === 'PRON') break;
      const w = t.text.toLowerCase().replace(/s$/, '');
      if (QUANTITY_NOUNS.has(w) || PLACE_NOUNS.has(w) || PERSON_NOUNS.has(w)) head = w;
    }
    if (head && DURATION_NOUNS.has(head)) return { type: 'quantity', head: 'duration' };
    if (head && QUANTITY_NOUNS.has(head)) return { type: 'quantity', head };
    if (head && PLACE_NOUNS.has(head)) return { type: 'place', head };
    if (head && PERSON_NOUNS.has(head)) return { type: 'person', head };
  }
  if (/\b(who|whom)\b/.test(q)) return { type: 'person', head: null };
  if (/\bwhere\b/.test(q)) return { type: 'place', head: null };
  if (/^when\b/.test(q)) return { type: 'quantity', head: null };
  return { type: 'any', head: null };
}

/**
 * The relation a question asks about: its words from the wh-word through the first noun after the
 * verb ("Who leads the project whose …" → leads, project). The answer sentence states that relation;
 * the rest of the question only identifies what it is about.
 */
export function relationTerms(question: string, qa: Analysis = analyze(question)): string[] {
  const toks = qa.tokens;
  let start = toks.findIndex((t) => /^(who|whom|whose|what|which|where|when|how)$/i.test(t.text));
  if (start < 0) start = 0;
  const out: string[] = [];
  let sawVerb = false;
  for (let i = start; i < toks.length; i++) {
    const t = toks[i]!;
    if (t.pos === 'VERB' || t.pos === 'AUX') sawVerb = true;
    out.push(...contentTerms(t.text));
    if ((t.pos === 'NOUN' || t.pos === 'PROPN') && sawVerb) break;
    if (out.length >= 4) break;
  }
  return out;
}

/** The short answer in the answer-bearing sentence, if one can be read off it. */
function extractValue(question: string, qTerms: Set<string>, sentence: string, snippet: Snippet): { value: string; attribute: string | null } | null {
  const cells = tableCells(sentence) ?? tableCells(snippet.text);
  const { type, head } = askedFor(question);
  if (cells) {
    // The asked column: its header shares words with the question, its value does not repeat it.
    let best: TableCell | null = null;
    let bestScore = 0;
    for (const c of cells) {
      const h = contentTerms(c.header);
      const v = contentTerms(c.value);
      const headerMatch = (head && h.includes(head) ? 1 : 0) + h.filter((t) => qTerms.has(t)).length / Math.max(1, h.length);
      const valueRepeats = v.length > 0 && v.every((t) => qTerms.has(t) || qTerms.has(t.replace(/^[+-]/, '')));
      // the value has the asked kind: a name for who/where, a figure for how much
      const kind =
        type === 'quantity' ? (/\d/.test(c.value) ? 0.5 : -0.5) : type === 'person' || type === 'place' ? (/^\p{Lu}/u.test(c.value) && !/\d/.test(c.value) ? 0.5 : -0.5) : 0;
      const score = headerMatch + kind - (valueRepeats ? 1 : 0);
      if (score > bestScore) {
        bestScore = score;
        best = c;
      }
    }
    if (best) return { value: best.value, attribute: best.header };
  }
  const a = analyze(sentence);
  const fresh = (text: string) => {
    const t = contentTerms(text);
    return t.length > 0 && !t.every((x) => qTerms.has(x));
  };
  if (type === 'person' || type === 'place') {
    // a single capitalised word opening the sentence ("Flight control runs …") is not a name
    const m = a.mentions.find((x) => x.kind === 'proper' && fresh(x.text) && !(x.start === 0 && !/\s/.test(x.text)));
    if (m) return { value: m.text, attribute: null };
  }
  if (type === 'quantity') {
    for (const m of sentence.matchAll(NUMBER)) {
      const v = m[0].trim();
      // "how often/long", an interval: only a figure with a time unit answers it ("6 months", not "85 %")
      if (head === 'duration' && !DURATION_UNIT.test(v)) continue;
      if (/\d/.test(v) && fresh(v) && !qTerms.has(canonicalNumber(v).replace(/^[+-]/, ''))) {
        // "−30 °C to +60 °C": a range is the answer as a whole
        const range = new RegExp(`${escapeRe(v)}\\s*(?:to|–|-)\\s*[+\\-−]?\\d[^,;.]*`).exec(sentence);
        // the asked attribute ("offset") when the sentence states it: what a conflicting source would state too
        const attribute = head && new RegExp(`\\b${escapeRe(head)}`, 'i').test(sentence) ? head : null;
        return { value: range ? range[0].trim() : v, attribute };
      }
    }
  }
  return null;
}

function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * Conflicting values: other evidence that states the same attribute for the same anchors (the
 * numbers and entities the question names) with a different value, e.g. an offset of +0.30 °C in
 * field notes against +0.35 °C in the datasheet.
 */
function findConflicts(question: string, value: string, attribute: string | null, source: Snippet, evidence: readonly Snippet[]): Conflict[] {
  if (!attribute || !/\d/.test(value)) return [];
  const attrTerms = contentTerms(attribute);
  if (attrTerms.length === 0) return [];
  const anchors = [...question.matchAll(NUMBER)].map((m) => canonicalNumber(m[0]).replace(/^[+]/, '')).filter((x) => /\d/.test(x));
  const want = canonicalNumber(value);
  const values: { value: string; snippet: Snippet }[] = [{ value, snippet: source }];
  for (const s of evidence.slice(0, 12)) {
    // rows of one table, or passages of one document, are different records, not disagreeing sources
    if (s.chunkId === source.chunkId || s.citation.source === source.citation.source) continue;
    const text = s.text;
    const terms = termSet(text);
    if (!attrTerms.every((t) => terms.has(t))) continue;
    const nums = [...text.matchAll(NUMBER)].map((m) => m[0].trim());
    const canon = nums.map((n) => canonicalNumber(n).replace(/^[+]/, ''));
    if (!anchors.every((a) => canon.some((c) => c === a || c.startsWith(a)))) continue;
    // the value stated for the attribute: the first number after the attribute word that is not an anchor
    const at = text.toLowerCase().search(new RegExp(`\\b${escapeRe(attrTerms[0]!)}`));
    if (at < 0) continue;
    const after = [...text.slice(at).matchAll(NUMBER)].map((m) => m[0].trim()).find((n) => /\d/.test(n) && !anchors.includes(canonicalNumber(n).replace(/^[+]/, '')));
    if (after && canonicalNumber(after) !== want && !values.some((v) => canonicalNumber(v.value) === canonicalNumber(after))) values.push({ value: after, snippet: s });
  }
  return values.length > 1 ? [{ attribute, values }] : [];
}

const sigmoid = (x: number) => 1 / (1 + Math.exp(-x));

/**
 * The answer from the evidence chain: the answer-bearing sentence, a short value when one can be
 * read off it, every snippet cited, and a calibrated confidence. Confidence starts from even odds
 * and each piece of evidence moves the log-odds (the Bayesian seed design): strong retrieval and
 * coverage of the question raise it; a value missing from the cited text, conflicting sources, an
 * unfinished chain lower it. With too little evidence it says so and lists the best leads.
 */
export function composeAnswer(question: string, qa: Analysis, hops: readonly HopState[], evidence: readonly Snippet[], stopReason: StopReason): Answer {
  const chain = hops.map((h) => h.snippets[0]).filter((s): s is Snippet => !!s);
  const leads = evidence.slice(0, 3);
  if (evidence.length === 0) {
    return { status: 'insufficient', value: null, sentence: null, source: null, chain, confidence: { score: 0.05, label: 'low', reasons: ['no evidence found'] }, conflicts: [], alternatives: [], leads };
  }
  const qTerms = termSet(question);
  const bridgeTerms = new Set(hops.flatMap((h) => (h.bridge ? contentTerms(h.bridge) : [])));
  const { type, head } = askedFor(question, qa);
  // For "how long/many/much …" the relation words are not in the answer ("90 seconds"); the value is.
  const relation = /\bhow\b/i.test(question) ? [] : relationTerms(question, qa);
  const qFigures = [...figures(question)];
  const hasAskedKind = (sentence: string): boolean => {
    if (type === 'quantity')
      return [...sentence.matchAll(NUMBER)].some((m) => /\d/.test(m[0]) && (head !== 'duration' || DURATION_UNIT.test(m[0])) && !contentTerms(m[0]).every((x) => qTerms.has(x)));
    if (type === 'person' || type === 'place') return analyze(sentence).mentions.some((m) => m.kind === 'proper' && !contentTerms(m.text).every((x) => qTerms.has(x)));
    return false;
  };
  // Candidate sentences: the top snippets of every hop, later hops preferred (they resolve the chain).
  let best: { sentence: string; snippet: Snippet; score: number; relation: number } | null = null;
  const scored: { sentence: string; snippet: Snippet; score: number; relation: number }[] = [];
  // The head of the question's slot ("the flight computer used in Project Falcon" → flight computer):
  // the answer is a statement about it, not about the anchor that identifies it.
  const known = termSet(evidence.slice(0, 10).map((e) => `${e.citation.document} ${e.text}`).join(' '));
  const slot = findSlot(question, qa, known);
  const slotHead = slot ? (qa.mentions.find((m) => m.kind === 'noun' && m.start >= slot.start && m.end <= slot.end) ?? null) : null;
  const slotTerms = slotHead ? contentTerms(slotHead.text) : [];
  hops.forEach((h, hi) => {
    h.snippets.slice(0, 3).forEach((s, si) => {
      // a statement is read in its context: its document title and headings
      const context = termSet(`${s.citation.document} ${s.citation.heading_path.join(' ')}`);
      for (const sentence of sentencesOfSnippet(s)) {
        const t = new Set([...termSet(sentence), ...context]);
        const qOverlap = [...qTerms].filter((x) => t.has(x)).length / Math.max(1, qTerms.size);
        const bOverlap = bridgeTerms.size ? [...bridgeTerms].filter((x) => t.has(x)).length / bridgeTerms.size : 0;
        const rOverlap = relation.length ? relation.filter((x) => t.has(x)).length / relation.length : 0;
        const sOverlap = slotTerms.length ? slotTerms.filter((x) => t.has(x)).length / slotTerms.length : 0;
        const kind = hasAskedKind(sentence) ? 0.4 : 0;
        // the figures the question names ("at 35 PSU", "at −20 °C") must be there: they pick the row
        const nums = figures(sentence);
        // (only beside a value of the asked kind: "Date: 2024-03-14" alone restates the question)
        const aOverlap = qFigures.length && kind > 0 ? qFigures.filter((f) => nums.has(f)).length / qFigures.length : 0;
        // What is asked (the relation, the slot's head, a value of the asked kind) counts more than
        // restating the question's identifying clause, which the anchoring hop already matched.
        const score = 0.8 * qOverlap + 1.0 * rOverlap + 0.5 * sOverlap + 0.8 * aOverlap + kind + 0.3 * bOverlap + 0.3 * s.score + 0.15 * hi - 0.03 * si;
        scored.push({ sentence, snippet: s, score, relation: rOverlap });
        if (!best || score > best.score) best = { sentence, snippet: s, score, relation: rOverlap };
      }
    });
  });
  const chosen = best as { sentence: string; snippet: Snippet; score: number; relation: number } | null;
  const sentence = chosen?.sentence ?? null;
  const source = chosen?.snippet ?? null;
  const extracted = sentence && source ? extractValue(question, qTerms, sentence, source) : null;
  const value = extracted?.value ?? null;

  const reasons: string[] = [];
  // Log-odds from a sceptical prior: an answer has to be earned by the evidence.
  let logit = -1;
  const top = Math.max(...chain.map((s) => s.score), source?.score ?? 0);
  logit += 3 * (top - 0.5);
  reasons.push(`best evidence score ${top.toFixed(2)}`);
  // Coverage of the question by the chain that answers it: each hop's best snippet (with its
  // document title) and the answer sentence. A multi-hop answer covers the question only together.
  const chainText = [...chain.map((s) => `${s.citation.document} ${s.citation.heading_path.join(' ')} ${s.text}`), source ? `${source.citation.document} ${sentence}` : ''].join(' ');
  const cov = evidenceCoverage(qa, question, chainText);
  logit += 5 * (cov - 0.6);
  reasons.push(`${Math.round(cov * 100)}% of the question's terms found in the chain of evidence`);
  if (value && source) {
    const inEvidence = source.text.includes(value) || contentTerms(value).every((t) => termSet(source.text).has(t));
    if (inEvidence) {
      logit += 0.8;
      reasons.push('the answer value appears in the cited snippet');
    } else {
      logit -= 1.5;
      reasons.push('the answer value is not in the cited snippet');
    }
  } else if (askedFor(question, qa).type !== 'any') {
    logit -= 0.7;
    reasons.push('no value of the asked kind could be read off the evidence');
  }
  const conflicts = value && source ? findConflicts(question, value, extracted?.attribute ?? null, source, evidence) : [];
  if (conflicts.length) {
    logit -= 3;
    reasons.push('sources disagree');
  }
  // Another reading close behind with a different value: the evidence does not settle it.
  const alternatives: { value: string; snippet: Snippet }[] = [];
  if (value && chosen) {
    const norm = (v: string) => canonicalNumber(v);
    for (const alt of scored.sort((a, b) => b.score - a.score)) {
      // a rival reading must state the asked relation as well as the chosen one does
      if (alt === chosen || alt.score < chosen.score - 0.3 || alt.relation < chosen.relation) continue;
      const v = extractValue(question, qTerms, alt.sentence, alt.snippet)?.value;
      if (v && norm(v) !== norm(value) && !alternatives.some((a) => norm(a.value) === norm(v)) && !conflicts.some((c) => c.values.some((x) => norm(x.value) === norm(v)))) alternatives.push({ value: v, snippet: alt.snippet });
      if (alternatives.length >= 2) break;
    }
    if (alternatives.length) {
      logit -= 1.5;
      reasons.push(`another snippet, close behind, reads ${alternatives.map((a) => `"${a.value}"`).join(' or ')}`);
    }
  }
  if (stopReason === 'low_coherence') {
    logit -= 1.5;
    reasons.push('the chain stopped: the next hop drifted from the question (suggestions offered)');
  } else if (stopReason === 'budget') {
    logit -= 0.7;
    reasons.push('the time budget cut the chain short');
  }
  const score = sigmoid(logit);
  // Disagreeing sources, or a chain that stopped short, never make a high-confidence answer.
  const capped = conflicts.length > 0 || alternatives.length > 0 || stopReason === 'low_coherence' || stopReason === 'budget';
  const label = score >= 0.7 && !capped ? 'high' : score >= 0.45 ? 'medium' : 'low';
  const status: Answer['status'] = conflicts.length ? 'conflicting' : score < 0.35 ? 'insufficient' : 'answered';
  return { status, value, sentence, source, chain, confidence: { score, label, reasons }, conflicts, alternatives, leads };
}
