/** The next hop's query: the question with its bridge slot filled by the entity found. */
import type { Analysis, Mention } from '../models/nlp.js';
import { contentTerms, foldName } from './text.js';

/**
 * The slot of a question: the span that stands for the entity the next hop needs, i.e. a noun phrase
 * that leads to what the evidence already covers ("the temperature sensor used in Project Falcon",
 * "the woman who portrayed Corliss Archer in the film Kiss and Tell").
 */
const RELATIVE =
  /^\s*,?\s*(whose|that|which|who|whom|where|used|made|built|owned|run|led|operated|installed|mounted|deployed|published|written|directed|produced|founded)\b/i;

export function findSlot(
  question: string,
  qa: Analysis,
  known: ReadonlySet<string>,
): { start: number; end: number } | null {
  const covered = (m: Mention) => {
    const t = contentTerms(m.text);
    return t.length > 0 && t.filter((x) => known.has(x)).length / t.length >= 0.5;
  };
  const anchors = qa.mentions
    // numbers are not anchors: "−20 °C" is a condition of the question, not what the slot refers to
    .filter((m) => (m.kind === 'proper' || m.kind === 'code' || m.kind === 'date') && covered(m))
    .sort((a, b) => a.start - b.start);
  const nouns = qa.mentions.filter((m) => m.kind === 'noun');
  const withDeterminer = (start: number) => {
    const det = /\b(the|a|an|its|their|his|her)\s+$/i.exec(question.slice(Math.max(0, start - 6), start));
    return det ? start - det[0].length : start;
  };
  for (const anchor of anchors) {
    // Possessive: "Project Osprey's particulate sensor" → the sensor is the slot.
    const poss = /^(?:'s|’s|')\s+/.exec(question.slice(anchor.end));
    if (poss) {
      const head = nouns.find(
        (m) => m.start >= anchor.end + poss[0].length && m.start <= anchor.end + poss[0].length + 2,
      );
      if (head) return { start: withDeterminer(anchor.start), end: head.end };
    }
    // "the temperature sensor used in Project Falcon", "the woman who portrayed … Kiss and Tell",
    // "the project whose drone lost telemetry on …": the noun phrase a relative clause or participle
    // attaches to the anchor; failing that, the nearest noun phrase before it.
    const before = nouns
      .filter((m) => m.end <= anchor.start && anchor.start - m.end <= 60)
      .sort((a, b) => b.end - a.end);
    const head = before.find((m) => RELATIVE.test(question.slice(m.end, anchor.start))) ?? before[0];
    if (head && !/[,;?]/.test(question.slice(head.end, anchor.start))) {
      let end = anchor.end;
      for (const a of anchors) if (a.start >= end && a.start - end <= 24) end = a.end;
      return { start: withDeterminer(head.start), end };
    }
  }
  return null;
}

/**
 * The next query, as a question a person reads: the entity stands where the question's slot was,
 * the slot's words after it as an aside ("What calibration offset applies at −20 °C to the
 * temperature sensor used in Project Falcon?" → "… to Vantor TS-40 (the temperature sensor used in
 * Project Falcon)?"). Every word of the question stays, so the hop still asks what the question
 * asks: dropping the slot's words moved the sample's −20 °C question to the −40 °C row of the
 * datasheet. Without a slot the entity is set after the question's words, once ("How do I undo a
 * commit — git revert?").
 */
export function extendQuery(
  current: string,
  entity: string,
  slot: { start: number; end: number } | null,
): { query: string; formedBy: 'slot-fill' | 'appended' } {
  const tidy = (q: string) =>
    q
      .replace(/\s+/g, ' ')
      .replace(/\s+([?.!,;:])/g, '$1')
      .trim();
  if (slot) {
    // never inside a word ("Jung Joon-young"), nor inside a quotation or parenthesis left open
    let end = slot.end;
    while (end < current.length && /[^\s,;:?!.]/.test(current[end]!)) end++;
    // the slot's own words stay beside it, as an aside: they are what retrieval matched the evidence by
    const described = current.slice(slot.start, end).trim();
    return {
      query: tidy(`${current.slice(0, slot.start)} ${entity} (${described}) ${current.slice(end)}`),
      formedBy: 'slot-fill',
    };
  }
  const m = /[?.!\s]*$/.exec(current);
  const stem = current.slice(0, m ? m.index : current.length);
  // the entity once: a query that already names it is not extended again
  if (foldName(stem).includes(foldName(entity))) return { query: tidy(`${stem}?`), formedBy: 'appended' };
  return { query: tidy(`${stem} — ${entity}?`), formedBy: 'appended' };
}
