import fs from 'node:fs';
import type { Command } from 'commander';
import type { ObservedSpan } from '../../engine/answer/read.js';
import { SPAN_FEATURES } from '../../engine/answer/span-scores.js';
import { SPANS } from '../../engine/answer/spans.fitted.js';
import { loadDataset } from '../../eval/dataset.js';
import { fitSpanWeights, firstRight, type SpanGroup } from '../../eval/fit-spans.js';
import { answerRight } from '../../eval/visible.js';
import { LOCAL } from '../../store/access.js';
import { UserError } from '../../errors.js';
import { progressBar } from '../progress.js';
import { fittedSpansSource, sourceFile, writeFitted } from './fitted-source.js';
import { evalEngine, withDatasetCore } from './eval.js';
import { heldOutReport } from './held-out.js';
import type { CliContext } from '../context.js';

/** Right spans below which a fit says nothing. */
const MIN_RIGHT_SPANS = 20;

export interface SpansOptions {
  dataset: string[];
  reportOn?: string[];
  limit?: number;
  l2: number;
  write?: boolean;
  dump?: string;
}

interface QuestionSpans extends SpanGroup {
  dataset: string;
  id: string;
}

const labelled = (spans: readonly ObservedSpan[], answers: readonly string[]) => ({
  offset: spans.map((s) => s.score),
  x: spans.map((s) => [...s.features]),
  y: spans.map((s) => (answerRight(s.whole, answers) ? 1 : 0)),
});

/** Runs every answerable question and keeps the spans that competed in its final reading, labelled. */
async function collectSpans(ctx: CliContext, cmd: Command, dirs: readonly string[], limit?: number) {
  const out: QuestionSpans[] = [];
  for (const dir of dirs) {
    const dataset = loadDataset(dir);
    const questions = dataset.questions.filter((q) => q.answers.length).slice(0, limit ?? Infinity);
    await withDatasetCore(ctx, cmd, dataset, undefined, async (core, config) => {
      let seen: readonly ObservedSpan[] = [];
      const engine = evalEngine(core, config, core.retriever, undefined, (_q, spans) => {
        seen = spans;
      });
      const bar = progressBar();
      bar.start(questions.length, `spans ${dataset.name}`);
      for (const [i, q] of questions.entries()) {
        seen = [];
        await engine.run(q.question, LOCAL);
        out.push({ dataset: dataset.name, id: q.id, ...labelled(seen, q.answers) });
        bar.update(i + 1, `spans ${dataset.name}`);
      }
      bar.stop();
    });
  }
  return out;
}

const share = (qs: readonly SpanGroup[], w: readonly number[]) =>
  `${qs.filter((q) => firstRight(q, w)).length}/${qs.length}`;

/** One line for a set: the first span right under the weights in use, under the fit, and where any span is right. */
function summary(name: string, qs: readonly SpanGroup[], fitted: readonly number[]): string {
  const any = qs.filter((q) => q.y.some((v) => v === 1)).length;
  return `  ${name.padEnd(22)} in use ${share(qs, SPANS.weights).padStart(7)}   fitted ${share(qs, fitted).padStart(7)}   any span right ${any}/${qs.length}   weights ${fitted.map((w) => w.toFixed(2)).join(' ')}`;
}

/**
 * The span scorer: its weights fitted on the --dataset sets to "the first span is right", judged
 * leave one set out (fitted without a set, ranked on it) and on the --report-on sets, never fitted on.
 */
export async function calibrateSpans(ctx: CliContext, cmd: Command, opts: SpansOptions, command: string) {
  const questions = await collectSpans(ctx, cmd, opts.dataset, opts.limit);
  const reported = opts.reportOn?.length ? await collectSpans(ctx, cmd, opts.reportOn, opts.limit) : [];
  if (opts.dump)
    fs.writeFileSync(opts.dump, `${[...questions, ...reported].map((q) => JSON.stringify(q)).join('\n')}\n`);
  if (questions.flatMap((q) => q.y).filter((v) => v === 1).length < MIN_RIGHT_SPANS)
    throw new UserError(`fewer than ${MIN_RIGHT_SPANS} spans are right: too few to fit; add datasets or questions`);
  const sets = [...new Set(questions.map((q) => q.dataset))];
  const fitOn = (qs: readonly QuestionSpans[]) => fitSpanWeights(qs, SPAN_FEATURES.length, opts.l2);
  const { model: weights, lines } = heldOutReport(questions, reported, fitOn, summary);
  const out = [
    `features: ${SPAN_FEATURES.join(' ')}; in use: ${SPANS.weights.join(' ')}`,
    'leave one set out:',
    ...lines,
  ];
  out.push('', `fit on all: ${SPAN_FEATURES.map((f, i) => `${f} ${weights[i]!.toFixed(2)}`).join(', ')}`);
  ctx.out(out.join('\n'));
  if (opts.write) {
    const file = sourceFile('answer', 'spans.fitted.ts');
    const fitted = {
      command,
      datasets: sets,
      questions: questions.length,
      spans: questions.reduce((n, q) => n + q.y.length, 0),
      l2: opts.l2,
      date: new Date().toISOString().slice(0, 10),
    };
    writeFitted(file, fittedSpansSource(SPAN_FEATURES, weights, fitted));
  }
}
