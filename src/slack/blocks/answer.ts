import type { KnownBlock, Button, ActionsBlock, SectionBlock, ContextBlock } from '@slack/types';
import type { Citation, EngineResult, HopState, Snippet } from '../../engine/types.js';
import { LIMITS, escapeMrkdwn, link, safeText, truncate } from './text.js';

export const ACTIONS = {
  continue: 'ragask_continue',
  stop: 'ragask_stop',
  trace: 'ragask_trace',
  helpful: 'ragask_feedback_helpful',
  notHelpful: 'ragask_feedback_not_helpful',
} as const;

export interface Message {
  text: string;
  blocks: KnownBlock[];
}

const STOP_TEXT: Record<EngineResult['stopReason'], string> = {
  answered: 'the evidence answers the question',
  no_new_evidence: 'no new evidence appeared',
  no_bridge: 'no further entity to follow',
  max_hops: 'hop limit reached',
  budget: 'time budget reached; the last hop is incomplete',
  low_coherence: 'the next hop is likely wrong, so you choose it',
};

function citationText(c: Citation): string {
  const where = [c.document, ...c.heading_path].join(' › ');
  return `${link(c.url, where)}${c.page ? ` (p. ${c.page})` : ''}`;
}

// verbatim: Slack must not turn a bare URL or #channel in the text into a link; the links ragask
// means are written out as <url|label>, which verbatim keeps.
function section(text: string): SectionBlock {
  return { type: 'section', text: { type: 'mrkdwn', text: truncate(text, LIMITS.sectionText), verbatim: true } };
}

function context(...texts: string[]): ContextBlock {
  return { type: 'context', elements: texts.slice(0, LIMITS.contextElements).map((t) => ({ type: 'mrkdwn', text: truncate(t, LIMITS.contextText), verbatim: true })) };
}

/**
 * What a person typed, shown back literally: a plain-text element (no formatting, no links, no
 * mentions: "*bold*" stays "*bold*"), after a label in mrkdwn that ragask wrote.
 */
function echo(label: string, userText: string, max: number): ContextBlock {
  return {
    type: 'context',
    elements: [
      { type: 'mrkdwn', text: label, verbatim: true },
      { type: 'plain_text', text: truncate(userText.replace(/\s+/g, ' ').trim() || '…', max), emoji: false },
    ],
  };
}

function button(text: string, actionId: string, value: string, style?: 'primary' | 'danger'): Button {
  return {
    type: 'button',
    text: { type: 'plain_text', text: truncate(text, LIMITS.buttonText), emoji: true },
    action_id: actionId,
    value: value.slice(0, LIMITS.buttonValue),
    ...(style ? { style } : {}),
  };
}

/** A snippet as a quote with its citation; snippet text is escaped and cut to fit a section. */
function quote(s: Snippet, max = 600): string {
  return `> ${safeText(s.text, max).replace(/\n/g, '\n> ')}\n${citationText(s.citation)}`;
}

export interface AnswerOptions {
  /** Key of the stored engine state behind this message (its buttons carry it). */
  stateKey: string | null;
  /** Who asked, shown at the top when the question was asked by command. */
  askedBy?: string;
  /** Show the question at the top (slash commands, where it is not visible otherwise). */
  echoQuestion?: boolean;
  /** Notes at the top, as mrkdwn the caller made safe (e.g. "your question was cut"). */
  notes?: string[];
  /** A last line, as mrkdwn the caller made safe (e.g. "Stopped here by <@U1>"). */
  footer?: string;
}

/** The answer message: answer, confidence, conflicts, the chain with citations, suggestions, actions. */
export function answerMessage(r: EngineResult, opts: AnswerOptions): Message {
  const a = r.answer;
  const blocks: KnownBlock[] = [];
  const asked = r.asked ?? r.question;
  for (const n of opts.notes ?? []) blocks.push(context(n));
  if (opts.echoQuestion) blocks.push(echo(`${opts.askedBy ? `<@${opts.askedBy}> asked` : 'Question'}:`, asked, 2500));

  let headline: string;
  if (a.value === null) {
    headline = a.conflicts.length
      ? 'I could not find a definite answer: the sources read this differently.'
      : `I could not find a definite answer.${a.leads.length ? ' The closest the evidence comes:' : ''}`;
    blocks.push(section(`:grey_question: ${headline}`));
    for (const s of a.leads.slice(0, 3)) blocks.push(section(quote(s)));
  } else {
    headline = a.value;
    const warn = a.status === 'conflicting' ? '\n:warning: Another source reads this differently — both are below; check which applies.' : '';
    blocks.push(section(`*${safeText(headline, 2000)}*${a.sentence ? `\n> ${safeText(a.sentence, 800)}` : ''}${a.source ? `\n${citationText(a.source.citation)}` : ''}${warn}`));
  }
  if (a.comparison) {
    const rows = a.comparison.options.map((o) => `• *${safeText(o.entity, 150)}*${o.value ? `: ${safeText(o.value, 150)}` : ''}${o.snippet ? ` — ${citationText(o.snippet.citation)}\n> ${safeText(o.snippet.text, 400)}` : ''}`);
    blocks.push(section(`Compared${a.comparison.attribute ? ` (${safeText(a.comparison.attribute.replace('{}', '…'), 100)})` : ''}:\n${rows.join('\n')}`));
  }
  for (const c of a.conflicts) {
    for (const v of c.values.slice(0, 4)) blocks.push(section(`• *${safeText(v.value, 200)}* — ${citationText(v.snippet.citation)}\n> ${safeText(v.snippet.text, 500)}`));
  }
  if (a.alternatives.length) {
    blocks.push(context(`Other readings close behind: ${a.alternatives.map((x) => `*${safeText(x.value, 100)}* (${citationText(x.snippet.citation)})`).join('; ')}`));
  }
  blocks.push(context(`Confidence: *${a.confidence.label}* (P(right) ${a.confidence.score.toFixed(2)}) — ${safeText(a.confidence.reasons.join('; '), 2500)}`));

  // The chain of evidence, one cited snippet per hop.
  const chainHops = r.hops.filter((h) => h.snippets[0]);
  if (chainHops.length) {
    blocks.push({ type: 'divider' });
    blocks.push(section(`*Chain of evidence* (${r.hops.length} hop${r.hops.length === 1 ? '' : 's'}; ${STOP_TEXT[r.stopReason]})`));
    for (const h of chainHops.slice(0, 5)) {
      blocks.push(section(`*Hop ${h.hop}*${h.bridge ? ` via _${safeText(h.bridge, 100)}_` : ''}\n${quote(h.snippets[0]!)}`));
    }
  }

  // Suggested next hops when the engine stopped instead of guessing.
  if (r.suggestions.length && opts.stateKey) {
    blocks.push(section(':thinking_face: I stopped here: the next hop I would take is likely wrong. Pick one to continue, or stop:'));
    const elements: Button[] = r.suggestions.slice(0, 3).map((s, i) => button(`Continue with: ${s.entity}`, `${ACTIONS.continue}_${i}`, JSON.stringify({ k: opts.stateKey, i }), i === 0 ? 'primary' : undefined));
    elements.push(button('Stop here', ACTIONS.stop, JSON.stringify({ k: opts.stateKey })));
    blocks.push({ type: 'actions', block_id: 'ragask_suggestions', elements } satisfies ActionsBlock);
  }
  if (opts.stateKey) {
    blocks.push({
      type: 'actions',
      block_id: 'ragask_tools',
      elements: [
        button('Show trace', ACTIONS.trace, JSON.stringify({ k: opts.stateKey })),
        button(':+1: Helpful', ACTIONS.helpful, JSON.stringify({ k: opts.stateKey })),
        button(':-1: Not helpful', ACTIONS.notHelpful, JSON.stringify({ k: opts.stateKey })),
      ],
    });
  }
  blocks.push(context(`${r.hops.length} hop${r.hops.length === 1 ? '' : 's'} · ${Math.round(r.timings.totalMs)} ms · ${r.evidence.length} snippets considered${opts.footer ? ` · ${opts.footer}` : ''}`));
  // the plain-text fallback feeds notifications and previews: escaped like everything else
  return fit({ text: safeText(headline, LIMITS.fallbackText), blocks });
}

/** Every hop's state, readably: the "show trace" view. */
export function traceMessage(r: EngineResult): Message {
  const blocks: KnownBlock[] = [section(`*Trace* of _${safeText(r.asked ?? r.question, 500)}_ — stopped: ${STOP_TEXT[r.stopReason]}, ${Math.round(r.timings.totalMs)} ms`)];
  for (const h of r.hops) blocks.push(...traceHop(h));
  if (r.suggestions.length) {
    blocks.push(section(`*Suggested next hops*\n${r.suggestions.map((s) => `• ${safeText(s.entity, 100)} — score ${s.score.toFixed(2)}, coherence ${s.coherence.cosine.toFixed(2)}: _${safeText(s.query, 300)}_`).join('\n')}`));
  }
  return fit({ text: `Trace: ${safeText(r.asked ?? r.question, 200)}`, blocks });
}

function traceHop(h: HopState): KnownBlock[] {
  const t = h.timings;
  const lines = [
    `*Hop ${h.hop}*${h.incomplete ? ' :hourglass: _incomplete (over budget)_' : ''} [${h.formedBy}${h.bridge ? `, bridge _${safeText(h.bridge, 100)}_` : ''}, weight ${h.weight.toFixed(2)}]`,
    `query: _${safeText(h.query, 500)}_`,
    `retrieve ${t.retrieveMs.toFixed(0)} ms (encode ${t.encodeMs.toFixed(0)}, dense ${t.denseMs.toFixed(1)}, bm25 ${t.bm25Ms.toFixed(1)}, rerank ${t.rerankMs.toFixed(1)}${t.cached ? ', cached' : ''}) · decompose ${t.decomposeMs.toFixed(0)} ms · ${h.retrieved.length} retrieved`,
  ];
  const snippets = h.snippets.map((s, i) => {
    const ref = h.retrieved.find((x) => x.chunkId === s.chunkId);
    const scores = ref ? `${ref.score.toFixed(3)} (rerank ${ref.rerank.toFixed(3)}, dense ${ref.dense?.toFixed(3) ?? '—'}, bm25 ${ref.bm25?.toFixed(1) ?? '—'})` : s.score.toFixed(3);
    return `${i + 1}. ${scores} ${citationText(s.citation)}: ${safeText(s.text, 160)}`;
  });
  const cands = h.candidates.slice(0, 5).map((c) => `• ${safeText(c.entity, 80)} ${c.score.toFixed(2)} (p ${c.confidence.toFixed(2)}; link ${c.features.link.toFixed(2)}, lookahead ${c.features.lookahead.toFixed(2)}, idf ${c.features.idf.toFixed(2)})`);
  const next = h.nextQuery
    ? `next: _${safeText(h.nextQuery, 400)}_ — coherence ${h.coherence!.cosine.toFixed(3)} (≥ ${h.coherence!.threshold}?), P(next hop right) ${h.coherence!.pRight === null ? '—' : h.coherence!.pRight.toFixed(2)} → ${h.coherence!.passed ? 'continue' : 'stop and suggest'}`
    : '';
  return [
    section(lines.join('\n')),
    ...(snippets.length ? [section(snippets.join('\n'))] : []),
    ...(cands.length || next ? [context([cands.length ? `candidates:\n${cands.join('\n')}` : '', next].filter(Boolean).join('\n'))] : []),
  ];
}

/** Keeps a message within Slack's limits: at most 50 blocks and a bounded total size. */
export function fit(m: Message): Message {
  let blocks = m.blocks;
  const size = () => JSON.stringify(blocks).length;
  if (blocks.length > LIMITS.blocks || size() > LIMITS.messageChars) {
    // keep the head (answer, confidence) and the trailing actions and footer; drop from the middle
    const tail: KnownBlock[] = [...blocks.filter((b) => b.type === 'actions'), ...blocks.slice(-1).filter((b) => b.type !== 'actions')];
    const head = blocks.filter((b) => !tail.includes(b));
    const note = context('_(shortened to fit in one Slack message)_');
    let keep = head.length;
    do {
      blocks = [...head.slice(0, keep), note, ...tail];
      keep--;
    } while ((blocks.length > LIMITS.blocks || size() > LIMITS.messageChars) && keep > 1);
  }
  return { text: m.text, blocks };
}

export function workingMessage(question: string): Message {
  return { text: 'Looking through the documents…', blocks: [echo(':mag: Looking through the documents for', question, 300)] };
}

export function busyMessage(): Message {
  return { text: 'Busy, retrying…', blocks: [context(':hourglass_flowing_sand: Many questions right now: yours is queued and will be answered shortly.')] };
}

export function usageMessage(prefix?: string): Message {
  const lines = [
    prefix ?? '*How to ask ragask*',
    '• `/ragask <question>` — answers in this channel (`/ragask -p <question>` answers only you)',
    '• `@ragask <question>` in a channel, or a direct message — answers in a thread',
    '• Reply in the thread with a question to follow up ("and at −40 °C?"), or mention @ragask there; no mention needed for a question',
    '• `/ragask sources` — which documents this channel can see',
    '• `/ragask help` — this message',
    'Every answer cites its snippets; when the evidence is thin or disagrees, ragask says so.',
  ];
  return { text: 'How to ask ragask', blocks: [section(lines.join('\n'))] };
}

/** A one-section message: plain text (escaped), or mrkdwn the caller made safe (mentions of ids it chose). */
export function noticeMessage(text: string, opts: { mrkdwn?: boolean } = {}): Message {
  const body = opts.mrkdwn ? truncate(text, LIMITS.sectionText) : safeText(text, LIMITS.sectionText);
  return { text: opts.mrkdwn ? truncate(text, LIMITS.fallbackText) : safeText(text, LIMITS.fallbackText), blocks: [section(body)] };
}

export function errorMessage(): Message {
  return noticeMessage('Something went wrong while answering; the error was logged. Please try again in a moment.');
}

export { escapeMrkdwn };
