import type { ChunkRow } from '../../store/types.js';
import type { Answer, HopState, Snippet, StopReason } from '../types.js';
import { composeAnswer, noEvidenceAnswer } from './compose.js';
import { evidencePassages, READER_PASSAGES } from './passages.js';
import { readAnswer, type AnswerReader } from './read.js';
import { candidateLines, rankLines, type LineCandidate } from './lines.js';
import { LINES } from './lines.fitted.js';
import { CALIBRATION } from './calibration.fitted.js';

export interface AnswerDeps {
  reader: AnswerReader;
  /** Chunk rows by id: the reader reads whole chunks, not the cited windows. */
  chunksOf: (ids: number[]) => Promise<ReadonlyMap<number, ChunkRow>>;
  /** Sees every candidate line of a reading (`ragask calibrate --lines` fits the line ranker on them). */
  observeLines?: LinesObserver;
}

/** A measurement hook: the question and every line it could lead with, features and all. */
export type LinesObserver = (question: string, lines: readonly LineCandidate[]) => void;

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
  const reading = await readAnswer(deps.reader, question, hops, read, stopped);
  const chosen = reading.passage && reading.start >= 0 ? { passage: reading.passage, start: reading.start, end: reading.end } : null;
  const lines = candidateLines(question, read, reading.spans ?? [], chosen);
  deps.observeLines?.(question, lines);
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
