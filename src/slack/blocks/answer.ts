import { suggestionLabel } from '../../engine/suggestion-label.js';
import type {
  KnownBlock,
  Button,
  ActionsBlock,
  SectionBlock,
  ContextBlock,
  RichTextBlock,
  RichTextElement,
  RichTextSection,
} from '@slack/types';
import type { Citation, EngineResult, Snippet } from '../../engine/types.js';
import type { FeedbackReason } from '../state/interfaces.js';
import { LIMITS, safeText, truncate } from './text.js';
import { shownLine } from '../../engine/answer/lines.js';

export const ACTIONS = {
  continue: 'ragask_continue',
  stop: 'ragask_stop',
  trace: 'ragask_trace',
  helpful: 'ragask_feedback_helpful',
  notHelpful: 'ragask_feedback_not_helpful',
  /** Followed by `_<reason>`: why an answer was not helpful. */
  feedbackReason: 'ragask_feedback_reason',
} as const;

/** The buttons that say why an answer was not helpful, as the asker reads them. */
export const REASON_LABELS: Record<FeedbackReason, string> = {
  wrong: 'It is wrong',
  outdated: 'It is out of date',
  not_asked: 'Not what I asked',
};

export interface Message {
  text: string;
  blocks: KnownBlock[];
}

export const STOP_TEXT: Record<EngineResult['stopReason'], string> = {
  answered: 'the evidence answers the question',
  no_new_evidence: 'no new evidence appeared',
  no_bridge: 'no further entity to follow',
  max_hops: 'hop limit reached',
  budget: 'time budget reached; the last hop is incomplete',
  low_coherence: 'the next hop is likely wrong, so you choose it',
  hop_unsure: 'the next hop looked wrong, so I answer from what I found',
};

// verbatim: Slack must not turn a bare URL or #channel in the text into a link; the links ragask
// means are written out as <url|label>, which verbatim keeps.
export function section(text: string): SectionBlock {
  return { type: 'section', text: { type: 'mrkdwn', text: truncate(text, LIMITS.sectionText), verbatim: true } };
}

export function context(...texts: string[]): ContextBlock {
  return {
    type: 'context',
    elements: texts
      .slice(0, LIMITS.contextElements)
      .map((t) => ({ type: 'mrkdwn', text: truncate(t, LIMITS.contextText), verbatim: true })),
  };
}

/**
 * What a person typed, shown back literally: a plain-text element (no formatting, no links, no
 * mentions: "*bold*" stays "*bold*"), after a label in mrkdwn that ragask wrote.
 */
export function echo(label: string, userText: string, max: number): ContextBlock {
  return {
    type: 'context',
    elements: [
      { type: 'mrkdwn', text: label, verbatim: true },
      { type: 'plain_text', text: truncate(userText.replace(/\s+/g, ' ').trim() || '…', max), emoji: false },
    ],
  };
}

export function button(text: string, actionId: string, value: string, style?: 'primary' | 'danger'): Button {
  return {
    type: 'button',
    text: { type: 'plain_text', text: truncate(text, LIMITS.buttonText), emoji: true },
    action_id: actionId,
    value: value.slice(0, LIMITS.buttonValue),
    ...(style ? { style } : {}),
  };
}

// Document text in rich text: text elements are shown literally (mrkdwn would render "*bold*" in a
// datasheet as bold, and a bare URL as a link), and links are explicit elements.

export const plain = (text: string, bold = false): RichTextElement => ({
  type: 'text',
  text,
  ...(bold ? { style: { bold: true } } : {}),
});

/** A citation as rich-text elements: the document (and headings) linked where it has an http(s) URL. */
export function citationElements(c: Citation): RichTextElement[] {
  const where = [c.document, ...c.heading_path].join(' › ');
  const page = c.page ? [plain(` (p. ${c.page})`)] : [];
  if (c.url && /^https?:\/\/[^\s<>|]+$/.test(c.url)) return [{ type: 'link', url: c.url, text: where }, ...page];
  return [plain(where), ...page];
}

/**
 * Quoted document text, literally, with its citation under it: a lead line first when given (a
 * value or a row label, `bold` for the value), a quote (the sentence or snippet) and the citation.
 */
function quoteBlock(parts: {
  lead?: RichTextElement[];
  text?: string | null;
  citation?: Citation | null;
  max?: number;
}): RichTextBlock {
  const elements: RichTextBlock['elements'] = [];
  if (parts.lead?.length) elements.push({ type: 'rich_text_section', elements: parts.lead } satisfies RichTextSection);
  const text = parts.text?.trim();
  if (text) elements.push({ type: 'rich_text_quote', elements: [plain(truncate(text, parts.max ?? 600))] });
  if (parts.citation) elements.push({ type: 'rich_text_section', elements: citationElements(parts.citation) });
  return { type: 'rich_text', elements };
}

/** A snippet quoted with its citation (see quoteBlock); the term of its entry leads, as code, when the text does not name it. */
function snippetBlock(s: Snippet, max = 600, lead?: RichTextElement[]): RichTextBlock {
  const term = termLead(s);
  const first = lead ?? term;
  return quoteBlock({ ...(first ? { lead: first } : {}), text: s.text, citation: s.citation, max });
}

/** A term after the value it labels ("-2000  (`PRAGMA cache_size`)"). */
function prefixed(term: RichTextElement[] | undefined): RichTextElement[] {
  return term ? [plain('  ('), ...term, plain(')')] : [];
}

/** Entries whose term is what a person types: a how-to leads with it, as code, even where the quote names it. */
const TYPED_TERMS = new Set(['command', 'option']);

/**
 * The term of the entry a quote belongs to, as code: when the quote does not name it (lines.ts
 * shownLine), and always for a command or an option (the step a how-to asks for).
 */
function termLead(s: Pick<Snippet, 'text' | 'citation'>): RichTextElement[] | undefined {
  const entry = s.citation.entry;
  if (!entry || (shownLine(s) === s.text && !TYPED_TERMS.has(entry.kind))) return undefined;
  return [{ type: 'text', text: truncate(entry.term, 200), style: { code: true } }];
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
  const headline = a.value === null ? noAnswerBlocks(a, blocks) : answerBlocks(a, blocks);
  blocks.push(...comparisonBlocks(a), ...conflictBlocks(a), ...alternativeBlocks(a));
  blocks.push(
    context(
      `Confidence: *${a.confidence.label}* (P(right) ${a.confidence.score.toFixed(2)}) — ${safeText(a.confidence.reasons.join('; '), 2500)}`,
    ),
  );
  blocks.push(...chainBlocks(r));
  if (opts.stateKey) blocks.push(...buttonBlocks(r, opts.stateKey));
  blocks.push(
    context(
      `${r.hops.length} hop${r.hops.length === 1 ? '' : 's'} · ${Math.round(r.timings.totalMs)} ms · ${r.evidence.length} snippets considered${opts.footer ? ` · ${opts.footer}` : ''}`,
    ),
  );
  // the plain-text fallback feeds notifications and previews: escaped like everything else
  return withinLimits({ text: safeText(headline, LIMITS.fallbackText), blocks });
}

type Answer = EngineResult['answer'];

/** No definite answer: says so, and shows the closest leads; returns the headline. */
function noAnswerBlocks(a: Answer, blocks: KnownBlock[]): string {
  const headline = a.conflicts.length
    ? 'I could not find a definite answer: the sources read this differently.'
    : `I could not find a definite answer.${a.leads.length ? ' The closest the evidence comes:' : ''}`;
  blocks.push(section(`:grey_question: ${headline}`));
  for (const s of a.leads.slice(0, 3)) blocks.push(snippetBlock(s));
  return headline;
}

/** The value, the sentence it was read from and its citation: all document text, shown literally; returns the headline. */
function answerBlocks(a: Answer, blocks: KnownBlock[]): string {
  const headline = a.value!;
  blocks.push(
    quoteBlock({
      lead: [
        plain(truncate(headline, 2000), true),
        ...(a.source ? prefixed(termLead({ ...a.source, text: a.sentence ?? a.source.text })) : []),
      ],
      text: a.sentence ? truncate(a.sentence, 800) : null,
      citation: a.source?.citation ?? null,
    }),
  );
  if (a.status === 'conflicting')
    blocks.push(section(':warning: Another source reads this differently — both are below; check which applies.'));
  return headline;
}

/** A comparison's options, each with the value read for it. */
function comparisonBlocks(a: Answer): KnownBlock[] {
  if (!a.comparison) return [];
  const attribute = a.comparison.attribute ? ` (${safeText(a.comparison.attribute.replace('{}', '…'), 100)})` : '';
  const blocks: KnownBlock[] = [section(`Compared${attribute}:`)];
  for (const o of a.comparison.options) {
    const lead = [
      plain('• '),
      plain(truncate(o.entity, 150), true),
      ...(o.value ? [plain(`: ${truncate(o.value, 150)}`)] : []),
    ];
    blocks.push(o.snippet ? snippetBlock(o.snippet, 400, lead) : quoteBlock({ lead }));
  }
  return blocks;
}

/** Each conflicting value with the snippet that states it. */
function conflictBlocks(a: Answer): KnownBlock[] {
  return a.conflicts.flatMap((c) =>
    c.values.slice(0, 4).map((v) => snippetBlock(v.snippet, 500, [plain('• '), plain(truncate(v.value, 200), true)])),
  );
}

/** Other readings close behind, each cited. */
function alternativeBlocks(a: Answer): KnownBlock[] {
  if (!a.alternatives.length) return [];
  const elements: RichTextElement[] = [plain('Other readings close behind: ')];
  for (const [i, x] of a.alternatives.entries())
    elements.push(
      ...(i ? [plain('; ')] : []),
      plain(truncate(x.value, 100), true),
      plain(' ('),
      ...citationElements(x.snippet.citation),
      plain(')'),
    );
  return [{ type: 'rich_text', elements: [{ type: 'rich_text_section', elements }] }];
}

/** The chain of evidence, one cited snippet per hop. */
function chainBlocks(r: EngineResult): KnownBlock[] {
  const chainHops = r.hops.filter((h) => h.snippets[0]);
  if (!chainHops.length) return [];
  const hops = `${r.hops.length} hop${r.hops.length === 1 ? '' : 's'}`;
  const blocks: KnownBlock[] = [
    { type: 'divider' },
    section(`*Chain of evidence* (${hops}; ${STOP_TEXT[r.stopReason]})`),
  ];
  for (const h of chainHops.slice(0, 5)) {
    const via = h.bridge
      ? [
          plain(' via '),
          { type: 'text', text: truncate(h.bridge, 100), style: { italic: true } } satisfies RichTextElement,
        ]
      : [];
    blocks.push(snippetBlock(h.snippets[0]!, 600, [plain(`Hop ${h.hop}`, true), ...via]));
  }
  return blocks;
}

/** Suggested next hops when the engine stopped instead of guessing, then the trace and feedback buttons. */
function buttonBlocks(r: EngineResult, stateKey: string): KnownBlock[] {
  const blocks: KnownBlock[] = [];
  if (r.suggestions.length) {
    blocks.push(
      section(
        ':thinking_face: I stopped here: the next hop I would take is likely wrong. Pick one to continue, or stop:',
      ),
    );
    const elements: Button[] = r.suggestions
      .slice(0, 3)
      .map((s, i) =>
        button(
          `Continue with: ${suggestionLabel(s)}`,
          `${ACTIONS.continue}_${i}`,
          JSON.stringify({ k: stateKey, i }),
          i === 0 ? 'primary' : undefined,
        ),
      );
    elements.push(button('Stop here', ACTIONS.stop, JSON.stringify({ k: stateKey })));
    blocks.push({ type: 'actions', block_id: 'ragask_suggestions', elements } satisfies ActionsBlock);
  }
  blocks.push({
    type: 'actions',
    block_id: 'ragask_tools',
    elements: [
      button('Show trace', ACTIONS.trace, JSON.stringify({ k: stateKey })),
      button(':+1: Helpful', ACTIONS.helpful, JSON.stringify({ k: stateKey })),
      button(':-1: Not helpful', ACTIONS.notHelpful, JSON.stringify({ k: stateKey })),
    ],
  });
  return blocks;
}

/** Keeps a message within Slack's limits: at most 50 blocks and a bounded total size. */
export function withinLimits(m: Message): Message {
  let blocks = m.blocks;
  const size = () => JSON.stringify(blocks).length;
  if (blocks.length > LIMITS.blocks || size() > LIMITS.messageChars) {
    // keep the head (answer, confidence) and the trailing actions and footer; drop from the middle
    const tail: KnownBlock[] = [
      ...blocks.filter((b) => b.type === 'actions'),
      ...blocks.slice(-1).filter((b) => b.type !== 'actions'),
    ];
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
