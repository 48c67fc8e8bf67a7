// How two answers compare as text: the engine compares readings across passages with these, and
// `ragask eval` scores answers with the same functions (src/eval/metrics.ts re-exports them).

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
