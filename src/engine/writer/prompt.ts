import type { Snippet } from '../types.js';
import type { ChatMessage } from './types.js';

/** The instructions: the evidence only, a citation after every sentence, values exactly as written. */
const INSTRUCTIONS = [
  "You answer a team member's question from numbered excerpts of the team's own documents.",
  'Use only the excerpts. If they do not answer the question, say that the documents do not say.',
  'After every sentence, cite the excerpts it comes from as [1], [2] and so on.',
  'Keep every number, unit, value, date, name, command and option exactly as the excerpt writes it.',
  'Answer in at most four short sentences. Do not add anything the excerpts do not state.',
].join('\n');

/** An excerpt as the model reads it: its number, title and headings, then its text. */
function excerpt(n: number, s: Snippet): string {
  const where = [s.citation.document, ...s.citation.heading_path].filter(Boolean).join(' › ');
  return `[${n}] ${where}\n${s.text}`;
}

/** What a write is asked: the question, the reply's evidence list, and a follow-up's earlier turn. */
export interface WriterInput {
  /** The question made self-contained (a follow-up's, with what it refers to). */
  question: string;
  /** The reply's evidence list, in its order: citation [n] is its n-th snippet. */
  evidence: readonly Snippet[];
  previous: { question: string; answer: string | null } | null;
}

/**
 * The prompt: the question (with the thread's earlier turn for a follow-up) and the reply's
 * evidence, numbered in the order of its evidence list. The evidence is the engine's result, which
 * is already filtered by the asker's access: the writer never sees a snippet the asker may not.
 */
export function writerMessages(input: WriterInput): ChatMessage[] {
  const { previous } = input;
  const excerpts = input.evidence.map((s, i) => excerpt(i + 1, s)).join('\n\n');
  const earlier = previous
    ? `Earlier in this thread: "${previous.question}"${previous.answer ? ` (answered: ${previous.answer})` : ''}\n\n`
    : '';
  return [
    { role: 'system', content: INSTRUCTIONS },
    { role: 'user', content: `${earlier}Question: ${input.question}\n\nExcerpts:\n\n${excerpts}` },
  ];
}
