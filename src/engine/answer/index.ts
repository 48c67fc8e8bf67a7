import type { ChunkRow, WindowRow } from '../../store/types.js';
import type { Answer, HopState, Snippet, StopReason } from '../types.js';
import { composeAnswer, noEvidenceAnswer } from './compose.js';
import { evidencePassages, READER_PASSAGES, type EvidencePassage } from './passages.js';
import { readAnswer, type SpansObserver } from './read.js';
import { candidateLines, rankLines, type LineCandidate } from './lines.js';
import { LINES } from './lines.fitted.js';
import { CALIBRATION } from './calibration.fitted.js';
import type { AnswerReader } from './reading.js';

export interface AnswerDeps {
  reader: AnswerReader;
  /** Chunk rows by id: the reader reads whole chunks, not the cited windows. */
  chunksOf: (ids: number[]) => Promise<ReadonlyMap<number, ChunkRow>>;
  /** The stored windows of chunks, with their vectors: how near each line stands to the question. */
  windowsOf?: (chunkIds: readonly number[]) => Promise<ReadonlyMap<number, readonly WindowRow[]>>;
  /** The question's vector (the first hop's query). */
  questionVector?: Float32Array;
  /** Sees every candidate line of a reading (`ragask calibrate --lines` fits the line ranker on them). */
  observeLines?: LinesObserver;
  /** Sees every span that competes to be the answer (`ragask calibrate --spans` fits the span scorer on them). */
  observeSpans?: SpansObserver;
}

/**
 * A measurement hook: the question, every line it could lead with (features and all) and the
 * passages they were read from (`ragask rows` writes them as training rows).
 */
export type LinesObserver = (
  question: string,
  lines: readonly LineCandidate[],
  passages: readonly EvidencePassage[],
) => void;

/**
 * The answer to `question` from a ranked evidence list (and the hops that found it, if any): the
 * reader reads the top passages, and the reading is composed into the answer a person sees.
 */
export async function answerFromEvidence(
  deps: AnswerDeps,
  question: string,
  hops: readonly HopState[],
  evidence: readonly Snippet[],
  stopReason: StopReason,
  opts: { passages?: number; cutShort?: boolean } = {},
): Promise<Answer> {
  if (evidence.length === 0) return noEvidenceAnswer();
  const read = await evidencePassages(hops, evidence, deps.chunksOf, opts.passages ?? READER_PASSAGES);
  // a chain stopped for a person or by the clock, or a reading the clock cut short, is not the whole story
  const stopped =
    stopReason === 'low_coherence' || stopReason === 'budget' || hops.some((h) => h.incomplete) || !!opts.cutShort;
  const reading = await readAnswer(deps.reader, question, hops, read, stopped, deps.observeSpans);
  const chosen =
    reading.passage && reading.start >= 0 ? { passage: reading.passage, start: reading.start, end: reading.end } : null;
  const nearness = await windowNearness(deps, read);
  const lines = candidateLines(question, read, reading.spans ?? [], chosen, nearness);
  deps.observeLines?.(question, lines, read);
  const ranked = LINES.model ? rankLines(lines, LINES.model) : null;
  const answer = composeAnswer(hops, evidence, read, reading, stopReason, CALIBRATION.model, ranked);
  if (opts.cutShort)
    answer.confidence.reasons.splice(
      -1,
      0,
      `the time budget left the reader ${read.length} passage${read.length === 1 ? '' : 's'} to read`,
    );
  return answer;
}

/**
 * Each read passage's windows with their cosine to the question (window vectors are unit length),
 * by passage index; empty where the store's windows or the question's vector are not at hand.
 */
async function windowNearness(
  deps: AnswerDeps,
  read: readonly EvidencePassage[],
): Promise<{ start: number; end: number; cosine: number }[][]> {
  const q = deps.questionVector;
  if (!q || !deps.windowsOf) return read.map(() => []);
  const windows = await deps.windowsOf([...new Set(read.map((p) => p.snippet.chunkId))]);
  return read.map((p) =>
    (windows.get(p.snippet.chunkId) ?? []).map((w) => ({
      start: w.charStart,
      end: w.charEnd,
      cosine: dot(q, w.vector),
    })),
  );
}

const dot = (a: Float32Array, b: Float32Array) => {
  let s = 0;
  for (let i = 0; i < a.length && i < b.length; i++) s += a[i]! * b[i]!;
  return s;
};
