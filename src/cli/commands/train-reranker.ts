import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { HeadScorer, contrastiveLoss, trainHead } from '../../engine/reranker-head.js';
import { makeTrainingPairs } from '../../engine/reranker-pairs.js';
import { cosineScorer } from '../../engine/rerank.js';
import { progressBar } from '../progress.js';
import { configFrom, parsePositiveInt, withCore } from './shared.js';
import type { CliContext } from '../context.js';

export function headFile(dataDir: string): string {
  return path.join(dataDir, 'reranker-head.json');
}

export function register(program: Command, ctx: CliContext): void {
  program
    .command('train-reranker')
    .description(
      'train the rerank head over the frozen encoder from self-supervised pairs of the indexed corpus (inverse cloze task)',
    )
    .option('--pairs <n>', 'most training pairs', parsePositiveInt('--pairs', 1_000_000), 3000)
    .option('--epochs <n>', 'passes over the pairs', parsePositiveInt('--epochs', 100), 3)
    .option('--out <file>', 'where to write the head (default: <data dir>/reranker-head.json)')
    .action(async (opts: { pairs: number; epochs: number; out?: string }, cmd: Command) => {
      const config = configFrom(ctx, cmd, { RAGASK_RERANKER: 'cosine' });
      await withCore(ctx, config, async (core) => {
        const bar = progressBar();
        bar.start(opts.pairs, 'encoding queries');
        const pairs = await makeTrainingPairs(core.store, core.encoder, opts.pairs, 7, (d) => bar.update(d));
        bar.stop();
        // hold out a tenth to compare with the plain cosine on pairs the head never saw
        const cut = Math.floor(pairs.length * 0.9);
        const train = pairs.slice(0, cut);
        const held = pairs.slice(cut);
        const tbar = progressBar();
        tbar.start(1, 'training');
        const weights = trainHead(train, core.encoder.id, {
          epochs: opts.epochs,
          onBatch: (d, t) => {
            tbar.start(t, 'training');
            tbar.update(d);
          },
        });
        tbar.stop();
        const head = new HeadScorer(weights);
        const out = opts.out ? path.resolve(opts.out) : headFile(config.dataDir);
        fs.writeFileSync(`${out}.tmp`, JSON.stringify(weights));
        fs.renameSync(`${out}.tmp`, out);
        ctx.out(
          [
            `trained on ${train.length} pairs, held out ${held.length}; final training loss ${weights.trainedOn.finalLoss.toFixed(3)}`,
            `held-out in-batch loss: cosine ${contrastiveLoss(cosineScorer, held).toFixed(3)}, head ${contrastiveLoss(head, held).toFixed(3)} (lower is better)`,
            `wrote ${out}`,
            'Use it with RAGASK_RERANKER=head, and check it helps on real questions first: RAGASK_RERANKER=head ragask eval --dataset <dir>',
          ].join('\n'),
        );
      });
    });
}
