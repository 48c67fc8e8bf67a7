import type { Command } from 'commander';
import type { RetrieveResult } from '../../engine/retrieve.js';
import type { CliContext } from '../program.js';
import { citationLabel, citationOf, displaySource, snippetOf } from '../format.js';
import { configFrom, parsePositiveInt, withCore } from './shared.js';

export function retrievalJson(question: string, r: RetrieveResult) {
  return {
    question,
    results: r.candidates.map((c, i) => ({
      rank: i + 1,
      score: round(c.score),
      scores: { rerank: round(c.rerank), dense: c.dense === null ? null : round(c.dense), bm25: c.bm25 === null ? null : round(c.bm25), fused: round(c.fused) },
      snippet: snippetOf(c),
      chunk_id: c.chunk.id,
      citation: citationOf(c.chunk),
    })),
    timings_ms: Object.fromEntries(Object.entries(r.timings).map(([k, v]) => [k, round(v, 1)])),
  };
}

function round(x: number, digits = 4): number {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}

export function register(program: Command, ctx: CliContext): void {
  program
    .command('ask')
    .description('print the best evidence snippets for a question, with citations and scores')
    .argument('<question>', 'the question, in quotes')
    .option('--k <n>', 'how many snippets', parsePositiveInt('--k', 100), 5)
    .option('--json', 'machine-readable output (stable shape)')
    .action(async (question: string, opts: { k: number; json?: boolean }, cmd: Command) => {
      const config = configFrom(ctx, cmd);
      await withCore(ctx, config, async (core) => {
        const r = await core.retriever.retrieve(question, { k: opts.k });
        if (opts.json) {
          ctx.out(JSON.stringify(retrievalJson(question, r), null, 2));
          return;
        }
        if (r.candidates.length === 0) {
          ctx.out('No evidence found: the store is empty or nothing matches. Ingest documents with `ragask ingest <paths>`.');
          return;
        }
        const lines = [`Q: ${question}`, ''];
        r.candidates.forEach((c, i) => {
          const cite = citationOf(c.chunk);
          lines.push(`${i + 1}. [${c.score.toFixed(3)}] ${citationLabel(cite)} — ${displaySource(cite.source)}`);
          lines.push(`   ${snippetOf(c)}`);
        });
        lines.push('', `(${r.timings.totalMs.toFixed(0)} ms)`);
        ctx.out(lines.join('\n'));
      });
    });
}
