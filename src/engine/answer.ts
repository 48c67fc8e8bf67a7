import { analyze, type Analysis } from '../models/nlp.js';
import { contentTerms, coverage, termSet } from './text.js';
import type { Answer, Conflict, HopState, Snippet, StopReason } from './types.js';

/** Share of the question's content words that the evidence text contains. */
export function evidenceCoverage(_qa: Analysis, question: string, evidenceText: string): number {
  return coverage(contentTerms(question), termSet(evidenceText));
}

// Longer units first: "90 seconds" must not stop at "90 s".
const NUMBER = /[+\-−±]?\d+(?:[.,]\d+)*(?:\s?(?:°\s?[CF]|%|seconds?|minutes?|hours?|days?|weeks?|months?|years?|kbit\/s|µg\/m³|mg\/L|MHz|GHz|kHz|Hz|dBm|dB|kWh|kW|mA|µA|PSU|km|cm|mm|min|[µm]?[sgLVAW]|h)\b)?/g;
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
  if (/^(how (many|much|long|often|far|old|big|high|fast|large|heavy|early|late))\b/.test(q) || /\bhow (many|much|long|often)\b/.test(q)) return { type: 'quantity', head: null };
  const toks = qa.tokens;
  const wh = toks.findIndex((t) => /^(which|what|whose)$/i.test(t.text));
  if (wh >= 0) {
    // The head of the phrase after the wh-word: the last known noun within four words (POS tags alone
    // are not trusted here: "offset" is often tagged as a verb).
    let head: string | null = null;
    for (let i = wh + 1; i < Math.min(toks.length, wh + 5); i++) {
      const t = toks[i]!;
      if (t.pos === 'AUX' || t.pos === 'ADP' || t.pos === 'PUNCT' || t.pos === 'PRON') break;
      const w = t.text.toLowerCase().replace(/s$/, '');
      if (QUANTITY_NOUNS.has(w) || PLACE_NOUNS.has(w) || PERSON_NOUNS.has(w)) head = w;
    }
    if (head && QUANTITY_NOUNS.has(head)) return { type: 'quantity', head };
    if (head && PLACE_NOUNS.has(head)) return { type: 'place', head };
    if (head && PERSON_NOUNS.has(head)) return { type: 'person', head };
  }
  if (/\b(who|whom)\b/.test(q)) return { type: 'person', head: null };
  if (/\bwhere\b/.test(q)) return { type: 'place', head: null };
  if (/^when\b/.test(q)) return { type: 'quantity', head: null };
  return { type: 'any', head: null };
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
    const m = a.mentions.find((x) => x.kind === 'proper' && fresh(x.text));
    if (m) return { value: m.text, attribute: null };
  }
  if (type === 'quantity') {
    for (const m of sentence.matchAll(NUMBER)) {
      const v = m[0].trim();
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
  const anchors = [...question.matchAll(NUMBER)].map((m) => canonicalNumber(m[0]).replace(/^[+]/, '')).filter((x) => /\d/.test(x));
  const want = canonicalNumber(value);
  const values: { value: string; snippet: Snippet }[] = [{ value, snippet: source }];
  for (const s of evidence.slice(0, 12)) {
    if (s.chunkId === source.chunkId) continue;
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
    return { status: 'insufficient', value: null, sentence: null, source: null, chain, confidence: { score: 0.05, label: 'low', reasons: ['no evidence found'] }, conflicts: [], leads };
  }
  const qTerms = termSet(question);
  const bridgeTerms = new Set(hops.flatMap((h) => (h.bridge ? contentTerms(h.bridge) : [])));
  // Candidate sentences: the top snippets of every hop, later hops preferred (they resolve the chain).
  let best: { sentence: string; snippet: Snippet; score: number } | null = null;
  hops.forEach((h, hi) => {
    h.snippets.slice(0, 3).forEach((s, si) => {
      for (const sentence of sentencesOfSnippet(s)) {
        const t = termSet(sentence);
        const qOverlap = [...qTerms].filter((x) => t.has(x)).length / Math.max(1, qTerms.size);
        const bOverlap = bridgeTerms.size ? [...bridgeTerms].filter((x) => t.has(x)).length / bridgeTerms.size : 0;
        const score = 1.5 * qOverlap + 0.3 * bOverlap + 0.3 * s.score + 0.15 * hi - 0.03 * si;
        if (!best || score > best.score) best = { sentence, snippet: s, score };
      }
    });
  });
  const chosen = best as { sentence: string; snippet: Snippet; score: number } | null;
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
  if (stopReason === 'low_coherence') {
    logit -= 1.5;
    reasons.push('the chain stopped: the next hop drifted from the question (suggestions offered)');
  } else if (stopReason === 'budget') {
    logit -= 0.7;
    reasons.push('the time budget cut the chain short');
  }
  const score = sigmoid(logit);
  // Disagreeing sources, or a chain that stopped short, never make a high-confidence answer.
  const capped = conflicts.length > 0 || stopReason === 'low_coherence' || stopReason === 'budget';
  const label = score >= 0.7 && !capped ? 'high' : score >= 0.45 ? 'medium' : 'low';
  const status: Answer['status'] = conflicts.length ? 'conflicting' : score < 0.35 ? 'insufficient' : 'answered';
  return { status, value, sentence, source, chain, confidence: { score, label, reasons }, conflicts, leads };
}
