/** What a reading is judged on: the features its calibrated confidence is fitted on (confidence.ts), in a module that imports nothing back. */
import type { ExpectedType } from './answer-type.js';

export type ReadKind = 'span' | 'yes' | 'no' | 'none';

export type ComparisonPath = 'none' | 'yesno' | 'choice-attribute' | 'choice-read';

/** The evidence about a reading that its calibrated confidence is fitted on (see confidence.ts). */
export interface ReadingFeatures {
  kind: ReadKind;
  /** 1 − P(none) in the window the answer comes from. */
  pAnswer: number;
  /** P(this kind | answered) there (span against yes against no). */
  pKind: number;
  /** start + end logit of the span (0 for yes/no). */
  spanScore: number;
  /** How far the span's score is ahead of the best reading with another value (capped at MARGIN_CAP). */
  margin: number;
  /** Other windows whose best reading is the same value. */
  agreement: number;
  /** Another document gives a different value, close behind. */
  conflict: boolean;
  /** Retrieval score and evidence rank of the answer's passage. */
  retrieval: number;
  rank: number;
  /** The hop that found the passage, its chain weight, and whether a person or the question confirmed it. */
  hop: number;
  weight: number;
  confirmed: boolean;
  comparison: ComparisonPath;
  /** The chain stopped short: at a person's decision, or cut by the time budget. */
  stopped: boolean;
  /** Words in the short answer (0 for yes/no): the longer a read span, the likelier it ran past the answer. */
  words: number;
  /** What the question asks for, and how the answer fits it (1 of that kind, 0 cannot tell, −1 not). */
  expected: ExpectedType;
  typeFit: number;
  /** Share of the question's content words that the answer's passage (with its title and headings) holds. */
  coverage: number;
  /** Another document among the passages says the same value, word for word. */
  corroborated: boolean;
}
