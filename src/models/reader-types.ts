/** What the extractive reader reads and returns: passages, spans, windows and a result. */

export const ANSWER_KINDS = ['span', 'yes', 'no', 'none'] as const;

export type AnswerKind = (typeof ANSWER_KINDS)[number];

export interface ReaderPassage {
  title: string;
  text: string;
  /**
   * Where an answer may stand, as character ranges of `text` (all of it when absent): a table row's
   * cell values, so an answer never runs across cells or includes a column header.
   */
  answerRanges?: readonly (readonly [number, number])[];
  /**
   * Spans to score whole beside the reader's own best ones, as character ranges of `text`: the values
   * of the kind the question asks for, so a value the top logits pass over still competes.
   */
  candidateRanges?: readonly (readonly [number, number])[];
}

export interface SpanCandidate {
  /** Index into the passages given to read(). */
  passage: number;
  /** Character offsets into that passage's text. */
  start: number;
  end: number;
  text: string;
  /** start logit + end logit. */
  score: number;
  window: number;
}

export interface ReaderWindow {
  /** The passages (indexes) this window holds, whole or in part. */
  passages: number[];
  /** P(span), P(yes), P(no), P(none) from the answer-type head. */
  probs: Record<AnswerKind, number>;
  /** The best spans of this window, best first (distinct texts). */
  spans: SpanCandidate[];
}

export interface ReaderResult {
  windows: ReaderWindow[];
  /** The reading: the window that most believes it holds the answer, and what it says. */
  kind: AnswerKind;
  /** 1 − P(none) in that window. */
  pAnswer: number;
  /** P(kind | answered) in that window. */
  pKind: number;
  window: number;
  span: SpanCandidate | null;
  ms: number;
}
