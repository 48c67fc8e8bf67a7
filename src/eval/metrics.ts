import { answerEM, hotpotNormalize, normalizeAnswer, tokenF1 } from '../engine/answer/normalize.js';

// the answer comparisons live with the engine, which compares readings with them too
export { answerEM, hotpotNormalize, normalizeAnswer, tokenF1 };

/** Whether any gold answer, normalised, appears in the normalised text (as whole words). */
export function containsAnswer(text: string, answers: readonly string[]): boolean {
  const hay = ` ${normalizeAnswer(text)} `;
  return answers.some((a) => {
    const n = normalizeAnswer(a);
    return n.length > 0 && hay.includes(` ${n} `);
  });
}

export function recallAt(ranked: readonly string[], gold: readonly string[], k: number): number {
  if (gold.length === 0) return 0;
  const top = new Set(ranked.slice(0, k));
  return gold.filter((g) => top.has(g)).length / gold.length;
}

export function allSupportAt(ranked: readonly string[], gold: readonly string[], k: number): number {
  const top = new Set(ranked.slice(0, k));
  return gold.length > 0 && gold.every((g) => top.has(g)) ? 1 : 0;
}

export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  const idx = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[idx]!;
}

export const mean = (xs: readonly number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);

/** The best EM and F1 of a prediction over the gold answers; a declined answer (null) scores 0. */
export function scoreAnswer(pred: string | null, golds: readonly string[]): { em: number; f1: number } {
  if (pred === null || golds.length === 0) return { em: 0, f1: 0 };
  return { em: Math.max(...golds.map((g) => answerEM(pred, g))), f1: Math.max(...golds.map((g) => tokenF1(pred, g))) };
}

/** Whether a gold answer set is yes/no (such answers never stand in a passage). */
export const isYesNo = (golds: readonly string[]) =>
  golds.length > 0 && golds.every((g) => /^(yes|no)$/i.test(g.trim()));
