import { isStopword } from '../../models/nlp.js';
import { cleanText } from '../blocks.js';
import { dehyphenate } from './text.js';

/**
 * Preformatted text that is prose wrapped by hand. Some manuals are written as plain text and put on
 * the web in `<pre>` whole (HAProxy's configuration manual, Postfix's manual pages): their sentences
 * run across hard line breaks, so they were split into lines mid-sentence and shown with the breaks
 * in them. A paragraph of such a block (its lines between blank lines) is unwrapped when it is prose:
 * sentences of ordinary words, at one indentation, wrapped where a sentence goes on. Anything else
 * (configuration, commands, aligned tables, a term over its indented description) stays as it is.
 */

/** A word as prose has it: letters, an apostrophe or a hyphen, with the punctuation around words. */
const PROSE_WORD = /^["'([]?[\p{L}][\p{L}'’-]*[\])"']?[.,;:!?]?["')]?$/u;
/** Share of a paragraph's tokens that must be prose words. */
const PROSE_SHARE = 0.75;
/** Fewer words than this is a label or a line of configuration, not prose. */
const MIN_WORDS = 8;
/** A line broken this long or longer was broken at the text's width; configuration's lines are short. */
const WRAP_CHARS = 50;
/**
 * Share of its tokens that prose spends on function words ("the", "of", "it"): configuration and
 * code made of words ("AuthType Basic AuthName …", "import gzip import logging") has next to none.
 */
const FUNCTION_WORD_SHARE = 0.3;

/** The white space a line opens with. */
export const indentOf = (line: string): number => line.length - line.trimStart().length;

/** Whether a paragraph of a preformatted block is prose wrapped by hand. */
export function isWrappedProse(lines: readonly string[]): boolean {
  const filled = lines.filter((l) => l.trim());
  if (!filled.length) return false;
  // one indentation, or a hanging one (an option's line over the rest of its sentence: "-m <limit> :
  // limit the total …"); a table aligned in columns, or lines indented every which way, is not prose
  const rest = filled.slice(1);
  const hanging = rest.length > 0 && indentOf(rest[0]!) > indentOf(filled[0]!);
  if (new Set(rest.map(indentOf)).size > 1 || (rest.length && indentOf(rest[0]!) < indentOf(filled[0]!))) return false;
  const tokens = filled.flatMap((l) => l.trim().split(/\s+/));
  if (tokens.length < MIN_WORDS) return false;
  const words = tokens.filter((t) => PROSE_WORD.test(t)).length;
  if (words < PROSE_SHARE * tokens.length) return false;
  const functionWords = tokens.filter((t) => isStopword(t.replace(/[^\p{L}'’]/gu, ''))).length;
  if (functionWords < FUNCTION_WORD_SHARE * tokens.length) return false;
  // every line opens with a word (or, going on from the line before, a number): a comment's "#", "--"
  // or "/*", or a prompt, marks code; a hanging paragraph's first line opens with what it describes
  const opens = (l: string, first: boolean) => {
    const t = l.trim().split(/\s+/)[0]!;
    return PROSE_WORD.test(t) || (!first && /^\d[\d.,%]*$/.test(t)) || (first && hanging);
  };
  if (!filled.every((l, i) => opens(l, i === 0))) return false;
  // lines broken at the text's width, one of them where its sentence goes on (a word, a comma or a
  // hyphen at its end); or one whole sentence
  const broken = filled.slice(0, -1);
  if (!broken.length) return /[.!?]$/.test(filled[0]!.trimEnd());
  return broken.every((l) => l.trim().length >= WRAP_CHARS) && broken.some((l) => /[\p{Ll},-]$/u.test(l.trimEnd()));
}

/**
 * A preformatted block with its prose paragraphs unwrapped: each on one line, a word broken by a
 * hyphen whole again. It stays one code block, so a manual's entry (a keyword's description with its
 * arguments and examples) stays one chunk.
 */
export function unwrapProse(text: string): string {
  return text
    .split(/\n[ \t]*\n/)
    .map((para) => {
      const lines = para.split('\n');
      return isWrappedProse(lines) ? cleanText(dehyphenate(lines.join('\n'))) : para;
    })
    .join('\n\n');
}
