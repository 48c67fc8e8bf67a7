import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import type { EvidencePassage } from '../../engine/answer/passages.js';
import type { LineCandidate } from '../../engine/answer/lines.js';
import { loadDataset, type EvalQuestion } from '../../eval/dataset.js';
import { LOCAL } from '../../store/access.js';
import { progressBar } from '../progress.js';
import { evalEngine, withDatasetCore } from './eval.js';
import { Retriever, type Candidate } from '../../engine/retrieve.js';
import { parsePositiveInt } from './shared.js';
import { UserError } from '../../errors.js';
import type { CliContext } from '../context.js';

/**
 * Training rows as the engine really reads a question: the passages its reader read (title and
 * whole text, as the reader's input is built from them) and every candidate first line with its
 * place in its passage and its features. scripts/train_teamqa.py labels them with the dataset's
 * evidence lines and answers, so the reading is trained on what it sees at inference.
 */
interface QuestionRow {
  dataset: string;
  id: string;
  question: string;
  type: string | null;
  answers: string[];
  evidence: string[];
  supporting: string[];
  passages: { title: string; text: string; document: string; rank: number; hop: number }[];
  lines: { passage: number; start: number; end: number; text: string; features: number[] }[];
  /** What the shipped reading said: its short answer and calibrated P(right). */
  value: string | null;
  p: number;
  hops: number;
}

/** Each question's evidence lines by id (a teamqa field the eval's question type does not carry). */
function evidenceById(file: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const raw of fs.readFileSync(file, 'utf8').split('\n')) {
    if (!raw.trim()) continue;
    const o = JSON.parse(raw) as { id: string; evidence?: unknown };
    out.set(String(o.id), Array.isArray(o.evidence) ? o.evidence.map(String) : []);
  }
  return out;
}

function rowOf(
  dataset: string,
  q: EvalQuestion,
  evidence: string[],
  seen: { lines: readonly LineCandidate[]; passages: readonly EvidencePassage[] },
  answer: { value: string | null; p: number; hops: number },
): QuestionRow {
  return {
    dataset,
    id: q.id,
    question: q.question,
    type: q.type,
    answers: q.answers,
    evidence,
    supporting: q.supporting,
    passages: seen.passages.map((p) => ({
      title: p.title,
      text: p.text,
      document: p.snippet.citation.document,
      rank: p.rank,
      hop: p.hop,
    })),
    lines: seen.lines.map((c) => ({
      passage: c.passage,
      start: c.start,
      end: c.end,
      text: c.snippet.text,
      features: c.features,
    })),
    ...answer,
  };
}

/** One search's reranked pool as `--candidates` writes it: what a learned chunk ranker is fitted on. */
function searchOf(query: string, candidates: readonly Candidate[]) {
  const maxBm25 = Math.max(1e-9, ...candidates.map((c) => c.bm25 ?? 0));
  return {
    query,
    candidates: candidates.map((c) => ({
      chunk: c.chunk.id,
      title: c.chunk.doc.title,
      headings: c.chunk.headingPath,
      kind: c.chunk.kind,
      entry: c.chunk.entry?.term ?? null,
      text: c.chunk.text,
      tokens: c.chunk.tokenCount,
      dense: c.dense,
      denseRank: c.denseRank,
      lexical: c.bm25 === null ? null : c.bm25 / maxBm25,
      bm25Rank: c.bm25Rank,
      fused: c.fused,
      rerank: c.rerank,
      score: c.score,
    })),
  };
}

/** Runs every question of each dataset and appends its row to `out` (one JSON object a line). */
async function writeRows(
  ctx: CliContext,
  cmd: Command,
  dirs: readonly string[],
  opts: { out: string; limit?: number; questions?: string; candidates?: string },
) {
  const { out, limit } = opts;
  if (opts.candidates) fs.writeFileSync(opts.candidates, '');
  if (opts.questions && dirs.length !== 1)
    throw new UserError('--questions asks other questions of one dataset: give exactly one --dataset with it');
  fs.writeFileSync(out, '');
  let written = 0;
  for (const dir of dirs) {
    const dataset = loadDataset(dir, opts.questions ? { questions: opts.questions } : {});
    const evidence = evidenceById(
      opts.questions ? path.resolve(opts.questions) : path.join(dataset.dir, 'questions.jsonl'),
    );
    const questions = dataset.questions.slice(0, limit ?? Infinity);
    await withDatasetCore(ctx, cmd, dataset, undefined, async (core, config) => {
      let seen: { lines: readonly LineCandidate[]; passages: readonly EvidencePassage[] } = { lines: [], passages: [] };
      let searches: ReturnType<typeof searchOf>[] = [];
      const retriever = opts.candidates
        ? new Retriever({
            store: core.store,
            encoder: core.encoder,
            scorer: core.retriever.scorer,
            densityWeight: config.densityWeight,
            observeCandidates: (query, candidates) => searches.push(searchOf(query, candidates)),
          })
        : core.retriever;
      const engine = evalEngine(core, config, retriever, (_q, lines, passages) => {
        seen = { lines, passages };
      });
      const bar = progressBar();
      bar.start(questions.length, `rows ${dataset.name}`);
      for (const [i, q] of questions.entries()) {
        seen = { lines: [], passages: [] };
        searches = [];
        const r = await engine.run(q.question, LOCAL);
        const answer = { value: r.answer.value, p: r.answer.confidence.score, hops: r.hops.length };
        fs.appendFileSync(out, `${JSON.stringify(rowOf(dataset.name, q, evidence.get(q.id) ?? [], seen, answer))}\n`);
        if (opts.candidates)
          fs.appendFileSync(opts.candidates, `${JSON.stringify({ dataset: dataset.name, id: q.id, searches })}\n`);
        written++;
        bar.update(i + 1, `rows ${dataset.name}`);
      }
      bar.stop();
    });
  }
  process.stderr.write(`ragask: wrote ${written} rows to ${out}\n`);
}

export function register(program: Command, ctx: CliContext): void {
  program
    .command('rows')
    .description(
      "write training rows: for each question of the datasets, the passages the reader read and every candidate line (scripts/train_teamqa.py's input)",
    )
    .requiredOption('--dataset <dirs...>', 'dataset folders (questions.jsonl with evidence lines, as teamqa)')
    .requiredOption('--out <file>', 'the JSON-lines file to write')
    .option('--limit <n>', 'only the first n questions of each', parsePositiveInt('--limit', 1_000_000))
    .option(
      '--candidates <file>',
      "also write each search's reranked candidates with their features (a chunk ranker's rows)",
    )
    .option(
      '--questions <file>',
      "ask these questions (teamqa's schema) of the one dataset's documents instead of its own, on its store",
    )
    .action(
      async (
        opts: { dataset: string[]; out: string; limit?: number; questions?: string; candidates?: string },
        cmd: Command,
      ) => writeRows(ctx, cmd, opts.dataset, opts),
    );
}
