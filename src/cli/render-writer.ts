import { printable } from './format.js';
import { isWritten } from '../engine/writer/index.js';
import type { WriterFailure, WrittenAnswer, WrittenSentence } from '../engine/writer/types.js';

/** The stable shape of `ragask ask --json`'s `writer`: null without a writer. */
export function writerJson(w: WrittenAnswer | WriterFailure | null) {
  if (!w) return null;
  const sentences = (list: readonly WrittenSentence[]) =>
    list.map((s) => ({
      text: s.text,
      citations: s.citations,
      kept: s.kept,
      reason: s.reason,
      ...(s.detail ? { detail: s.detail } : {}),
      ...(s.support === null ? {} : { support: Math.round(s.support * 1000) / 1000 }),
    }));
  if (!isWritten(w))
    return {
      model: w.model,
      ms: Math.round(w.ms),
      text: null,
      failed: w.failed,
      message: w.message,
      sentences: sentences(w.sentences ?? []),
    };
  return { model: w.model, ms: Math.round(w.ms), text: w.text, sentences: sentences(w.sentences) };
}

/** The written answer first, as a person reads it, with what the check dropped; the extractive reply follows. */
export function renderWritten(w: WrittenAnswer | WriterFailure): string {
  if (!isWritten(w))
    return `(The writer ${w.model} gave no answer: ${w.message}. The answer read from the evidence follows.)\n\n`;
  const dropped = w.sentences.filter((s) => !s.kept).length;
  const note = dropped
    ? `\n  (${dropped} written sentence${dropped === 1 ? '' : 's'} dropped: not supported by what ${dropped === 1 ? 'it' : 'they'} cited)`
    : '';
  return `Written by ${w.model}, checked against the evidence [n] below:\n  ${printable(w.text)}${note}\n\n`;
}
