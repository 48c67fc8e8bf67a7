import type { KnownBlock } from '@slack/types';
import type { Snippet } from '../../engine/types.js';
import type { WriterFailure, WrittenAnswer } from '../../engine/writer/types.js';
import { ACTIONS, button, type Message } from './answer.js';
import { LIMITS, escapeMrkdwn, link, safeText, truncate } from './text.js';

/** The written text's share of a section: its citations grow into links, and escaping grows it too. */
const WRITTEN_TEXT_MAX = LIMITS.sectionText / 2;
/** The longest document title a source line shows. */
const SOURCE_TITLE_MAX = 120;
/** The longest model name the header shows. */
const MODEL_NAME_MAX = 100;

/** A citation as the model writes it, in escaped text. */
const CITATION = /\[(\d+)\]/g;

/**
 * The written text in mrkdwn: cut to fit first (so no entity or link is cut), escaped (it is a
 * model's text), each [n] a link to its source where it has one.
 */
function linkedText(text: string, evidence: readonly Snippet[], max: number): string {
  return escapeMrkdwn(truncate(text, max)).replace(CITATION, (whole, n: string) => {
    const s = evidence[Number(n) - 1];
    return s ? link(s.citation.url, whole) : whole;
  });
}

/** The sources the citations number, as a person finds them. */
function sourceLines(evidence: readonly Snippet[], cited: ReadonlySet<number>): string {
  return evidence
    .map((s, i) => ({ s, n: i + 1 }))
    .filter(({ n }) => cited.has(n))
    .map(({ s, n }) => `[${n}] ${link(s.citation.url, truncate(s.citation.document, SOURCE_TITLE_MAX))}`)
    .join('   ');
}

/** "Show trace" under a written answer: its sentences, kept or dropped and why (a state of its own). */
function traceButtonBlock(stateKey: string): KnownBlock {
  return {
    type: 'actions',
    block_id: 'ragask_written_tools',
    elements: [button('Show trace', ACTIONS.trace, JSON.stringify({ k: stateKey }))],
  };
}

/**
 * The checked written answer, replacing its streamed draft: the kept sentences, their sources, what
 * was dropped, and (given the key of its stored state) the trace that says which and why.
 */
export function writtenMessage(w: WrittenAnswer, evidence: readonly Snippet[], stateKey?: string): Message {
  const kept = w.sentences.filter((s) => s.kept);
  const dropped = w.sentences.length - kept.length;
  const cited = new Set(kept.flatMap((s) => s.citations));
  const blocks: KnownBlock[] = [
    {
      type: 'context',
      elements: [
        {
          type: 'mrkdwn',
          text: `:memo: Written by ${safeText(w.model, MODEL_NAME_MAX)} from the evidence; every sentence checked against what it cites`,
        },
      ],
    },
    { type: 'section', text: { type: 'mrkdwn', text: linkedText(w.text, evidence, WRITTEN_TEXT_MAX) } },
    {
      type: 'context',
      elements: [{ type: 'mrkdwn', text: truncate(sourceLines(evidence, cited), LIMITS.contextText) }],
    },
  ];
  if (dropped)
    blocks.push({
      type: 'context',
      elements: [
        {
          type: 'mrkdwn',
          text: `:scissors: ${dropped} written sentence${dropped === 1 ? ' was' : 's were'} dropped: not supported by what ${dropped === 1 ? 'it' : 'they'} cited.${stateKey ? ' The trace shows which, and why.' : ''}`,
        },
      ],
    });
  if (stateKey) blocks.push(traceButtonBlock(stateKey));
  return { text: safeText(w.text, LIMITS.fallbackText), blocks };
}

/**
 * A write that did not happen: the streamed draft gives way to a plain note (the answer above
 * stands), with the trace when there were sentences to drop.
 */
export function writerFailedMessage(f: WriterFailure, stateKey?: string): Message {
  const text = `The written answer was withdrawn (${f.failed.replace(/_/g, ' ')}); the answer above is read from the evidence.`;
  const blocks: KnownBlock[] = [
    { type: 'context', elements: [{ type: 'mrkdwn', text: `:grey_exclamation: ${text}` }] },
  ];
  if (stateKey) blocks.push(traceButtonBlock(stateKey));
  return { text, blocks };
}

/** A write that broke before it could say why: the draft gives way to a plain note. */
export function writerBrokeMessage(): Message {
  const text = 'The written answer was withdrawn; the answer above is read from the evidence.';
  return { text, blocks: [{ type: 'context', elements: [{ type: 'mrkdwn', text: `:grey_exclamation: ${text}` }] }] };
}
