/** The trace a person opens under an answer: every hop, its query, its evidence and why the chain went on or stopped. */
import { suggestionLabel } from '../../engine/suggestion-label.js';
import type { KnownBlock, RichTextBlock, RichTextElement } from '@slack/types';
import type { EngineResult, HopState, WrittenTrace } from '../../engine/types.js';
import type { WrittenSentence } from '../../engine/writer/types.js';
import { safeText, truncate } from './text.js';
import { type Message, plain, STOP_TEXT, withinLimits, citationElements } from './answer.js';

/** Every hop's state, readably: the "show trace" view. Queries, bridges and snippets are shown literally. */
export function traceMessage(r: EngineResult): Message {
  const header: RichTextElement[] = [
    plain('Trace', true),
    plain(' of '),
    italic(truncate(r.asked ?? r.question, 500)),
    plain(` — stopped: ${STOP_TEXT[r.stopReason]}, ${Math.round(r.timings.totalMs)} ms`),
  ];
  const blocks: KnownBlock[] = [richText([header])];
  for (const h of r.hops) blocks.push(...traceHop(h));
  if (r.suggestions.length) {
    blocks.push(
      richText(
        [[plain('Suggested next hops', true)]],
        r.suggestions.map((s) => [
          plain(
            `${truncate(suggestionLabel(s), 160)} — score ${s.score.toFixed(2)}, coherence ${s.coherence.cosine.toFixed(2)}: `,
          ),
          italic(truncate(s.query, 300)),
        ]),
      ),
    );
  }
  if (r.written) blocks.push(traceWritten(r.written, r));
  return withinLimits({ text: `Trace: ${safeText(r.asked ?? r.question, 200)}`, blocks });
}

/** Why a written sentence was dropped, as a person reads it. */
const DROP_TEXT: Record<NonNullable<WrittenSentence['reason']>, string> = {
  no_citation: 'cites nothing',
  bad_citation: 'cites a number the evidence does not have',
  value_not_in_source: 'states what its sources do not',
  not_supported: 'not close enough to what it cites',
};

/** The writer's sentences, each kept or dropped and why (its citations name the evidence above). */
function traceWritten(w: WrittenTrace, r: EngineResult): KnownBlock {
  const head = `Written by ${truncate(w.model, 100)} in ${Math.round(w.ms)} ms${w.failed ? `, withdrawn (${w.failed.replace(/_/g, ' ')})` : ''}`;
  const items = w.sentences.map((s): RichTextElement[] => {
    const cites = s.citations
      .map((n) => `[${n}] ${truncate(r.evidence[n - 1]?.citation.document ?? '?', 60)}`)
      .join(', ');
    const verdict = s.kept
      ? 'kept'
      : `dropped: ${s.reason ? DROP_TEXT[s.reason] : 'unchecked'}${s.detail ? ` (${truncate(s.detail, 80)})` : ''}`;
    const support = s.support === null ? '' : `, support ${s.support.toFixed(2)}`;
    return [plain(`${verdict}${support}${cites ? `; cites ${cites}` : ''}: `, !s.kept), italic(truncate(s.text, 300))];
  });
  return richText([[plain(head, true)]], items, 'ordered');
}

const italic = (text: string): RichTextElement => ({ type: 'text', text, style: { italic: true } });

/** A rich-text block of lines (sections), then a bulleted list of items. */
function richText(
  lines: RichTextElement[][],
  items: RichTextElement[][] = [],
  style: 'bullet' | 'ordered' = 'bullet',
): RichTextBlock {
  const elements: RichTextBlock['elements'] = lines.map((l) => ({ type: 'rich_text_section', elements: l }));
  if (items.length)
    elements.push({
      type: 'rich_text_list',
      style,
      elements: items.map((i) => ({ type: 'rich_text_section', elements: i })),
    });
  return { type: 'rich_text', elements };
}

function traceHop(h: HopState): KnownBlock[] {
  const t = h.timings;
  const lines: RichTextElement[][] = [
    [
      plain(`Hop ${h.hop}`, true),
      plain(`${h.incomplete ? ' ⌛ incomplete (over budget)' : ''} [${h.formedBy}`),
      ...(h.bridge ? [plain(', bridge '), italic(truncate(h.bridge, 100))] : []),
      plain(`, weight ${h.weight.toFixed(2)}]`),
    ],
    [plain('query: '), italic(truncate(h.query, 500))],
    [
      plain(
        `retrieve ${t.retrieveMs.toFixed(0)} ms (encode ${t.encodeMs.toFixed(0)}, dense ${t.denseMs.toFixed(1)}, bm25 ${t.bm25Ms.toFixed(1)}, rerank ${t.rerankMs.toFixed(1)}${t.cached ? ', cached' : ''}) · decompose ${t.decomposeMs.toFixed(0)} ms · ${h.retrieved.length} retrieved`,
      ),
    ],
  ];
  const snippets = h.snippets.map((s): RichTextElement[] => {
    const ref = h.retrieved.find((x) => x.chunkId === s.chunkId);
    const scores = ref
      ? `${ref.score.toFixed(3)} (rerank ${ref.rerank.toFixed(3)}, dense ${ref.dense?.toFixed(3) ?? '—'}, bm25 ${ref.bm25?.toFixed(1) ?? '—'})`
      : s.score.toFixed(3);
    return [plain(`${scores} `), ...citationElements(s.citation), plain(`: ${truncate(s.text, 160)}`)];
  });
  const cands = h.candidates
    .slice(0, 5)
    .map((c): RichTextElement[] => [
      plain(
        `${truncate(c.entity, 80)} ${c.score.toFixed(2)} (p ${c.confidence.toFixed(2)}; link ${c.features.link.toFixed(2)}, lookahead ${c.features.lookahead.toFixed(2)}, idf ${c.features.idf.toFixed(2)})`,
      ),
    ]);
  const out: KnownBlock[] = [richText(lines, snippets, 'ordered')];
  if (cands.length) out.push(richText([[plain('candidates:')]], cands));
  if (h.nextQuery) {
    const c = h.coherence!;
    out.push(
      richText([
        [
          plain('next: '),
          italic(truncate(h.nextQuery, 400)),
          plain(
            ` — coherence ${c.cosine.toFixed(3)} (≥ ${c.threshold}?), P(next hop right) ${c.pRight === null ? '—' : c.pRight.toFixed(2)} → ${c.passed ? 'continue' : 'stop and suggest'}`,
          ),
        ],
      ]),
    );
  }
  return out;
}
