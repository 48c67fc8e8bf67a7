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

const ASCII_PUNCTUATION = /[!"#$%&'()*+,\-./:;<=>?@[\\\]^_`{|}~]/g;

/** HotpotQA's answer normalisation, exactly: lower case, ASCII punctuation out, articles out, spaces collapsed. */
export function hotpotNormalize(s: string): string {
  return s
    .toLowerCase()
    .replace(ASCII_PUNCTUATION, '')
    .replace(/\b(a|an|the)\b/g, ' ')
    .split(/\s+/)
    .filter(Boolean)
    .join(' ');
}

/** Exact match after HotpotQA normalisation. */
export function answerEM(pred: string, gold: string): number {
  return hotpotNormalize(pred) === hotpotNormalize(gold) ? 1 : 0;
}

/** HotpotQA's token F1 (yes / no / noanswer only match themselves). */
export function tokenF1(pred: string, gold: string): number {
  const p = hotpotNormalize(pred);
  const g = hotpotNormalize(gold);
  const special = new Set(['yes', 'no', 'noanswer']);
  if ((special.has(p) || special.has(g)) && p !== g) return 0;
  const pt = p.split(' ').filter(Boolean);
  const gt = g.split(' ').filter(Boolean);
  const counts = new Map<string, number>();
  for (const t of gt) counts.set(t, (counts.get(t) ?? 0) + 1);
  let same = 0;
  for (const t of pt) {
    const n = counts.get(t) ?? 0;
    if (n > 0) {
      same++;
      counts.set(t, n - 1);
    }
  }
  if (same === 0) return 0;
  const precision = same / pt.length;
  const recall = same / gt.length;
  return (2 * precision * recall) / (precision + recall);
}

/** The best EM and F1 of a prediction over the gold answers; a declined answer (null) scores 0. */
export function scoreAnswer(pred: string | null, golds: readonly string[]): { em: number; f1: number } {
  if (pred === null || golds.length === 0) return { em: 0, f1: 0 };
  return { em: Math.max(...golds.map((g) => answerEM(pred, g))), f1: Math.max(...golds.map((g) => tokenF1(pred, g))) };
}

/** Whether a gold answer set is yes/no (such answers never stand in a passage). */
export const isYesNo = (golds: readonly string[]) => golds.length > 0 && golds.every((g) => /^(yes|no)$/i.test(g.trim()));
