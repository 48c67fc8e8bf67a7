import fs from 'node:fs';
import { UserError } from '../../errors.js';
import { scoreAnswer } from '../../eval/metrics.js';
import type { EvalReport } from '../../eval/run.js';
import { answerRight } from '../../eval/visible.js';
import type { ReadingFeatures } from '../../engine/answer/features.js';

// The answer confidence's samples read back from `ragask eval --json` reports instead of from a run of
// the engine: each set can then be read by another reader (each teamqa fold by the reader that never
// saw it), and the fit sees the readings a shipped reader's held-out sets would give.

/** One reading and whether the answer it proposes is right. */
export interface ConfidenceSample {
  dataset: string;
  id: string;
  question: string;
  /** The reading's short answer (for --dump). */
  value: string | null;
  features: ReadingFeatures;
  /** The proposed answer is right (eval/visible.ts answerRight: what the confidence is a probability of). */
  em: number;
  f1: number;
}

function readReport(file: string): EvalReport {
  let report: EvalReport;
  try {
    report = JSON.parse(fs.readFileSync(file, 'utf8')) as EvalReport;
  } catch (e) {
    throw new UserError(
      `--from-eval ${file}: not a readable JSON report (${(e as Error).message}); write one with \`ragask eval --json\``,
    );
  }
  if (!report.per_question?.multihop)
    throw new UserError(
      `--from-eval ${file}: no per-question multihop rows; run \`ragask eval --modes multihop --json ${file}\``,
    );
  return report;
}

/** Every question's reading in the reports, an unanswerable question's proposal labelled wrong; and their readers. */
export function samplesFromEval(files: readonly string[]): { samples: ConfidenceSample[]; reader: string } {
  const samples: ConfidenceSample[] = [];
  const readers = new Set<string>();
  for (const file of files) {
    const report = readReport(file);
    readers.add(report.reader ?? 'unrecorded reader');
    for (const q of report.per_question!.multihop!) {
      const features = q.answer?.features;
      if (!features || (!q.gold.length && q.type !== 'unanswerable')) continue;
      const value = q.answer!.proposed;
      samples.push({
        dataset: report.dataset,
        id: q.id,
        question: q.question,
        value,
        features,
        em: answerRight(value, q.gold) ? 1 : 0,
        f1: scoreAnswer(value, q.gold).f1,
      });
    }
  }
  return { samples, reader: [...readers].sort().join(', ') };
}
