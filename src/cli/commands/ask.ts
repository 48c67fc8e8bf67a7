import { InvalidArgumentError, type Command } from 'commander';
import type { RetrieveResult } from '../../engine/retrieve.js';
import { UserError } from '../../errors.js';
import { LOCAL, type AccessContext } from '../../store/access.js';
import { citationOf, snippetFrom } from '../../engine/snippet.js';
import { traceOf } from '../../engine/writer/index.js';
import { citationLabel, displaySource } from '../format.js';
import { answerJson, renderAnswer, renderTrace } from '../render.js';
import { renderWritten, writerJson } from '../render-writer.js';
import { checkerCheck } from './doctor-writer.js';
import { configFrom, parsePositiveInt, withCore } from './shared.js';
import type { CliContext } from '../context.js';
import type { Core } from '../../core.js';

function round(x: number, digits = 4): number {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}

/** The stable shape of `ragask ask --single-hop --json`. */
export function retrievalJson(question: string, r: RetrieveResult) {
  return {
    question,
    results: r.candidates.map((c, i) => ({
      rank: i + 1,
      score: round(c.score),
      scores: {
        rerank: round(c.rerank),
        dense: c.dense === null ? null : round(c.dense),
        bm25: c.bm25 === null ? null : round(c.bm25),
        fused: round(c.fused),
      },
      snippet: snippetFrom(c).text,
      chunk_id: c.chunk.id,
      citation: citationOf(c.chunk),
    })),
    timings_ms: Object.fromEntries(Object.entries(r.timings).map(([k, v]) => [k, round(v, 1)])),
  };
}

function parseThreshold(value: string): number {
  const x = Number(value);
  if (!Number.isFinite(x) || x < 0 || x > 1)
    throw new InvalidArgumentError(`--threshold must be a number from 0 to 1 (got ${JSON.stringify(value)})`);
  return x;
}

interface AskOptions {
  k: number;
  json?: boolean;
  trace?: boolean;
  maxHops?: number;
  threshold?: number;
  singleHop?: boolean;
  continue?: number;
  channel?: string;
  user?: string;
  dm?: boolean;
}

/** The asker's context: the operator by default, or as a Slack channel / user would ask. */
export function askContext(opts: { channel?: string; user?: string; dm?: boolean }): AccessContext {
  if (!opts.channel && !opts.user) return LOCAL;
  if (opts.dm && !opts.user) throw new UserError('--dm needs --user <id>: a direct message is seen as that user');
  return { kind: 'slack', channel: opts.channel ?? `D-${opts.user}`, user: opts.user ?? 'U-cli', isDM: !!opts.dm };
}

export function register(program: Command, ctx: CliContext): void {
  program
    .command('ask')
    .description('answer a question by multi-hop retrieval, citing every snippet')
    .argument('<question>', 'the question, in quotes')
    .option('--k <n>', 'how many evidence snippets to show', parsePositiveInt('--k', 100), 5)
    .option('--json', 'machine-readable output (stable shape)')
    .option(
      '--trace',
      'print every hop: query, snippets with scores, bridge candidates, next query, coherence, timings',
    )
    .option('--max-hops <n>', 'most hops (RAGASK_MAX_HOPS)', parsePositiveInt('--max-hops', 5))
    .option(
      '--threshold <x>',
      'coherence threshold (RAGASK_COHERENCE_THRESHOLD); a threshold you set stops for you at every check it fails (RAGASK_STOP_FOR_PERSON=always)',
      parseThreshold,
    )
    .option('--continue <n>', 'continue with suggested next hop n of this question', parsePositiveInt('--continue', 3))
    .option('--single-hop', 'hybrid retrieval only: the best snippets with their scores')
    .option('--channel <id>', 'answer as in this Slack channel: only documents its scope allows')
    .option('--user <id>', 'answer as this Slack user (with --dm: in their direct messages)')
    .option('--dm', 'answer as in a direct message with --user')
    .action(async (question: string, opts: AskOptions, cmd: Command) => {
      const config = configFrom(ctx, cmd, {
        ...(opts.maxHops ? { RAGASK_MAX_HOPS: opts.maxHops } : {}),
        ...(opts.threshold !== undefined
          ? { RAGASK_COHERENCE_THRESHOLD: opts.threshold, RAGASK_STOP_FOR_PERSON: 'always' }
          : {}),
      });
      await withCore(ctx, config, (core) => answerAsked(ctx, core, question, opts));
    });
}

/** `ragask ask`'s work on an open core: one hop's scored snippets, or the engine's answer (and the writer's). */
async function answerAsked(ctx: CliContext, core: Core, question: string, opts: AskOptions): Promise<void> {
  if ((await core.store.documents.counts()).documents === 0) {
    process.stderr.write(
      'ragask: the store is empty: ingest documents first with `ragask ingest <paths>` (or run `npm run demo` for the sample corpus)\n',
    );
    process.exitCode = 1;
    return;
  }
  const context = askContext(opts);
  if (opts.singleHop) {
    const r = await core.retriever.retrieve(question, { k: opts.k, access: await core.access.resolve(context) });
    if (opts.json) return ctx.out(JSON.stringify(retrievalJson(question, r), null, 2));
    const lines = [`Q: ${question}`, ''];
    r.candidates.forEach((c, i) => {
      const cite = citationOf(c.chunk);
      lines.push(
        `${i + 1}. [${c.score.toFixed(3)}] ${citationLabel(cite)} — ${displaySource(cite.source)}`,
        `   ${snippetFrom(c).text}`,
      );
    });
    lines.push('', `(${r.timings.totalMs.toFixed(0)} ms)`);
    return ctx.out(lines.join('\n'));
  }
  let result = await core.engine.run(question, context);
  if (opts.continue) {
    if (result.suggestions.length < opts.continue) {
      process.stderr.write(
        `ragask: --continue ${opts.continue}: this question has ${result.suggestions.length} suggested next hop(s)\n`,
      );
      process.exitCode = 1;
      return;
    }
    result = await core.engine.resume(result, opts.continue - 1, context);
  }
  if (core.config.writer && !core.writer) {
    const why = checkerCheck(core.config.model);
    process.stderr.write(`ragask: the writer is off: ${why.detail}; ${why.fix}\n`);
  }
  // the writer reads the reply's evidence list: the k snippets shown, numbered as shown
  const written = core.writer
    ? await core.writer.write({
        question: result.question,
        evidence: result.evidence.slice(0, opts.k),
        previous: null,
      })
    : null;
  if (opts.json)
    return ctx.out(JSON.stringify({ ...answerJson(result, opts.k), writer: writerJson(written) }, null, 2));
  ctx.out(
    (written ? renderWritten(written) : '') +
      renderAnswer(result, opts.k) +
      (opts.trace ? `\n${renderTrace(written ? { ...result, written: traceOf(written) } : result)}` : ''),
  );
}
