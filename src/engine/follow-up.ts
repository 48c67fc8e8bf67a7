import { analyze } from '../models/nlp.js';
import { contentTerms } from './text.js';
import type { EngineResult } from './types.js';

const FIGURE = /[+\-−±]?\d+(?:[.,]\d+)?\s?(°\s?[CF]|%|[a-zA-Zµ/³]+)?/g;

/** Figures with their unit ("−40 °C" → unit °c). */
function figuresWithUnit(text: string): { text: string; unit: string; index: number }[] {
  return [...text.matchAll(FIGURE)]
    .filter((m) => /\d/.test(m[0]))
    .map((m) => ({ text: m[0].trim(), unit: (m[1] ?? '').replace(/\s/g, '').toLowerCase(), index: m.index }));
}

/**
 * A follow-up in a thread, made answerable on its own. "And what about at −40 °C?" after "Which
 * calibration offset applies at −20 °C to the temperature sensor used in Project Falcon?" becomes the
 * earlier question with −40 °C in place of −20 °C; an elliptical follow-up without figures to swap
 * gets the earlier question's subject (its names and the chain's bridge entities) after it. A
 * follow-up that names its own subject and asks a full question stands as it is.
 */
export function contextualize(
  previous: Pick<EngineResult, 'question' | 'hops'>,
  followUp: string,
): { query: string; how: 'standalone' | 'substituted' | 'with-context' } {
  const f = followUp.trim();
  const fa = analyze(f);
  const ownNames = fa.mentions.filter((m) => m.kind === 'proper' || m.kind === 'code');
  const words = contentTerms(f);
  const elliptical =
    /^(and|but|also|what about|how about|same|and what|what if)\b/i.test(f) ||
    words.length <= 3 ||
    /\b(it|its|they|their|them|that one|this one|those|these)\b/i.test(f);
  if (!elliptical && ownNames.length > 0) return { query: f, how: 'standalone' };

  // Swap figures of the same unit into the earlier question.
  const old = figuresWithUnit(previous.question);
  for (const nf of figuresWithUnit(f)) {
    const target = old.find((o) => o.unit === nf.unit && o.unit !== '') ?? (old.length === 1 ? old[0] : undefined);
    if (target) {
      const q = previous.question;
      return {
        query: q.slice(0, target.index) + nf.text + q.slice(target.index + target.text.length),
        how: 'substituted',
      };
    }
  }
  // Otherwise: the follow-up, then what the earlier chain was about.
  const subject = new Set<string>();
  for (const m of analyze(previous.question).mentions)
    if (m.kind === 'proper' || m.kind === 'code') subject.add(m.text);
  for (const h of previous.hops) if (h.bridge) subject.add(h.bridge);
  const context = [...subject].filter((s) => !contentTerms(s).every((t) => words.includes(t)));
  if (context.length === 0) return { query: `${f} (${previous.question})`, how: 'with-context' };
  return { query: `${f} (${context.join(', ')})`, how: 'with-context' };
}
