/** SQuAD-style answer normalisation, plus Unicode folding (accents, minus signs, degree spacing). */
export function normalizeAnswer(s: string): string {
  return s
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[\u2212\u2012\u2013\u2014]/g, '-')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s.+-]/gu, ' ')
    .replace(/(?<![\p{N}])[.]|[.](?![\p{N}])/gu, ' ')
    .replace(/\b(a|an|the)\b/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

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
