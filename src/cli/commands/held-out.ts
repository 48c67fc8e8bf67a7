/** What `ragask calibrate --lines` and `--spans` share: each set judged on a fit without it, the --report-on sets on the fit on all. */

/**
 * One summary line per set left out (fitted on the other sets), then one per reported set (on the
 * fit on every --dataset set, which is returned with the lines).
 */
export function heldOutReport<Q extends { dataset: string }, M>(
  questions: readonly Q[],
  reported: readonly Q[],
  fitOn: (qs: readonly Q[]) => M,
  summary: (set: string, qs: readonly Q[], model: M) => string,
): { model: M; lines: string[] } {
  const lines: string[] = [];
  const of = (qs: readonly Q[], set: string) => qs.filter((q) => q.dataset === set);
  for (const set of new Set(questions.map((q) => q.dataset)))
    lines.push(summary(set, of(questions, set), fitOn(questions.filter((q) => q.dataset !== set))));
  const model = fitOn(questions);
  if (reported.length) {
    lines.push('', 'never fitted on (the fit on all --dataset sets):');
    for (const set of new Set(reported.map((q) => q.dataset))) lines.push(summary(set, of(reported, set), model));
  }
  return { model, lines };
}
