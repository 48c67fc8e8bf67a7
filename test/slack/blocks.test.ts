import { describe, expect, it } from 'vitest';
import { richTextKinds, richTextOf, textObjects } from './text-objects.js';
import { hop, result, snippet } from '../fixtures/results.js';
import type { Snippet } from '../../src/engine/types.js';
import { ACTIONS, answerMessage, withinLimits } from '../../src/slack/blocks/answer.js';
import { LIMITS, escapeMrkdwn, humanDuration, link, safeText } from '../../src/slack/blocks/text.js';
import { traceMessage } from '../../src/slack/blocks/trace.js';
import { usageMessage } from '../../src/slack/blocks/notices.js';

/** What each block shows, as text: mrkdwn as written, rich text with its marks (see richTextOf). */
/** A result with no short answer: "I could not find a definite answer", these leads after it. */
function withoutAnswer(leads: Snippet[]) {
  return result(
    {},
    { status: 'insufficient', kind: null, sentence: null, value: null, source: null, span: null, leads },
  );
}

function sections(blocks: unknown[]): string[] {
  return (
    blocks as { type: string; text?: { text: string }; elements?: { text?: string | { text: string } }[] }[]
  ).flatMap((b) =>
    b.type === 'section'
      ? [b.text!.text]
      : b.type === 'context'
        ? (b.elements ?? []).map((e) => String(e.text))
        : b.type === 'rich_text'
          ? [richTextOf(b)]
          : [],
  );
}

describe('Block Kit builders', () => {
  it('shows the answer, its citation with a link, the chain per hop and the confidence', () => {
    const m = answerMessage(result(), { stateKey: 'k1' });
    const text = sections(m.blocks).join('\n');
    expect(m.text).toBe('+0.35 °C');
    expect(text).toContain('*+0.35 °C*');
    expect(text).toContain('<https://wiki.example/ts40|Doc 1 › Section>');
    expect(text).toContain('*Hop 2* via _Entity 2_');
    expect(text).toContain('> Project Falcon uses the Vantor TS-40.');
    expect(text).toMatch(/Confidence: \*high\* \(P\(right\) 0\.80\)/);
    // the sentence the answer comes from is quoted under it
    expect(text).toContain('> The Vantor TS-40 offset at −20 °C is +0.35 °C.');
    const actions = JSON.stringify(m.blocks.filter((b) => b.type === 'actions'));
    for (const id of [ACTIONS.trace, ACTIONS.helpful, ACTIONS.notHelpful]) expect(actions).toContain(id);
  });

  it('turns suggestions into "Continue with" buttons carrying the state key, plus "Stop here"', () => {
    const coherence = {
      cosine: 0.6,
      directional: 0.1,
      drift: 0.1,
      pRight: 0.2,
      gateThreshold: 0.5,
      passed: false,
      threshold: 0.75,
    };
    const m = answerMessage(
      result({
        stopReason: 'low_coherence',
        suggestions: [
          {
            entity: 'Corvid FC-3',
            chunkId: 1,
            sourceDocId: 1,
            linkDocId: 2,
            query: 'q',
            score: 2,
            confidence: 0.5,
            coherence,
          },
        ],
      }),
      { stateKey: 'key-9' },
    );
    const buttons = m.blocks
      .filter((b) => b.type === 'actions')
      .flatMap((b) => (b as { elements: { text: { text: string }; value: string; action_id: string }[] }).elements);
    expect(buttons[0]!.text.text).toBe('Continue with: Corvid FC-3');
    // with the document it leads to, the label says so
    const led = answerMessage(
      result({
        stopReason: 'low_coherence',
        suggestions: [
          {
            entity: 'Corvid FC-3',
            leadsTo: 'Corvid FC-3 datasheet',
            chunkId: 1,
            sourceDocId: 1,
            linkDocId: 2,
            query: 'q',
            score: 2,
            confidence: 0.5,
            coherence,
          },
        ],
      }),
      { stateKey: 'k' },
    );
    expect(JSON.stringify(led.blocks)).toContain('Continue with: Corvid FC-3 → Corvid FC-3 datasheet');
    expect(JSON.parse(buttons[0]!.value)).toEqual({ k: 'key-9', i: 0 });
    expect(buttons[0]!.action_id).toBe(`${ACTIONS.continue}_0`);
    expect(buttons.some((b) => b.text.text === 'Stop here')).toBe(true);
  });

  it("leads a quote with its entry's term, as code, where the quote does not name it or the term is a command", () => {
    const lead = (text: string, entry: { term: string; kind: 'term' | 'option' | 'command' | 'row' | 'field' }) => {
      const s = snippet(3, text);
      return { ...s, citation: { ...s.citation, entry } };
    };
    const m = answerMessage(
      withoutAnswer([
        lead('The default is 30 seconds (30s).', { term: 'flush_interval', kind: 'term' }),
        lead('drain-stop: Stops the server after the requests in progress finish.', {
          term: 'drain-stop',
          kind: 'command',
        }),
        lead('flush_batch: How many records go into one flush.', { term: 'flush_batch', kind: 'term' }),
      ]),
      { stateKey: null },
    );
    const quotes = m.blocks.filter((b) => b.type === 'rich_text').map((b) => richTextOf(b));
    expect(quotes[0]).toBe('`flush_interval`\n> The default is 30 seconds (30s).\nDoc 3 › Section');
    expect(quotes[1]).toBe(
      '`drain-stop`\n> drain-stop: Stops the server after the requests in progress finish.\nDoc 3 › Section',
    );
    // a term the quote already names, and no command: the quote alone
    expect(quotes[2]).toBe('> flush_batch: How many records go into one flush.\nDoc 3 › Section');
  });

  it('says plainly when there is no definite answer, and shows disagreeing sources side by side', () => {
    const missing = answerMessage(withoutAnswer([snippet(3, 'a lead')]), { stateKey: null });
    const m = sections(missing.blocks).join('\n');
    expect(m).toMatch(/could not find a definite answer/);
    expect(m).toContain('> a lead');
    const values = [
      { value: '+0.30 °C', snippet: snippet(4, 'notes say +0.30') },
      { value: '+0.35 °C', snippet: snippet(5, 'datasheet says +0.35') },
    ];
    // a confident reading that another source contradicts: the answer, a warning, both sources
    const conflict = answerMessage(
      result({}, { status: 'conflicting', conflicts: [{ attribute: 'the answer', values }] }),
      { stateKey: null },
    );
    const t = sections(conflict.blocks).join('\n');
    expect(t).toContain('*+0.35 °C*');
    expect(t).toMatch(/Another source reads this differently/);
    expect(t).toContain('• *+0.30 °C*\n> notes say +0.30');
    expect(t).toContain('Doc 4');
    expect(t).toContain('Doc 5');
    // and one below the threshold: no short answer, the sources side by side
    const declined = answerMessage(
      result(
        {},
        {
          status: 'conflicting',
          kind: null,
          value: null,
          sentence: null,
          source: null,
          conflicts: [{ attribute: 'the answer', values }],
        },
      ),
      { stateKey: null },
    );
    const d = sections(declined.blocks).join('\n');
    expect(d).toMatch(/could not find a definite answer: the sources read this differently/);
    expect(d).toContain('• *+0.30 °C*\n> notes say +0.30');
    // no headline value read from a sentence: only the sources, side by side
    expect(d).not.toContain('*+0.35 °C*\n> The Vantor');
  });

  it('shows what a comparison read for each compared thing, with its citation', () => {
    const m = answerMessage(
      result(
        {},
        {
          value: 'Ada Brook',
          comparison: {
            attribute: 'When was {} born?',
            options: [
              { entity: 'Ada Brook', value: '1950', snippet: snippet(6, 'Ada Brook (born 1950)') },
              { entity: 'Carl Dunn', value: '1961', snippet: snippet(7, 'Carl Dunn (born 1961)') },
            ],
          },
        },
      ),
      { stateKey: null },
    );
    const t = sections(m.blocks).join('\n');
    expect(t).toContain('Compared (When was … born?)');
    expect(t).toContain('• *Ada Brook*: 1950\n> Ada Brook (born 1950)');
    expect(t).toContain('• *Carl Dunn*: 1961');
    expect(t).toContain('Doc 7');
  });

  it('never lets echoed text ping or link: mentions and links are escaped', () => {
    const hostile = 'Hi <!channel> and <@U123> see <https://evil.example|click> & more';
    const m = answerMessage(result({ question: `${hostile} *bold* https://bare.example` }, { value: hostile }), {
      stateKey: null,
      echoQuestion: true,
    });
    // what Slack parses (mrkdwn) holds none of it, and is verbatim: no bare URL is linked
    const { mrkdwn, plain } = textObjects(m.blocks);
    const parsed = JSON.stringify(mrkdwn);
    expect(parsed).not.toContain('<!channel>');
    expect(parsed).not.toContain('<@U123>');
    expect(parsed).not.toContain('<https://evil.example');
    for (const t of mrkdwn) expect(t.verbatim).toBe(true);
    // the question itself is echoed as plain text, literally
    expect(plain).toContain(`${hostile} *bold* https://bare.example`);
    expect(escapeMrkdwn(hostile)).toBe(
      'Hi &lt;!channel&gt; and &lt;@U123&gt; see &lt;https://evil.example|click&gt; &amp; more',
    );
    expect(link('javascript:alert(1)', 'x')).toBe('x');
  });

  it('shows document text literally: markup, mentions and bare URLs in a document stay as written', () => {
    const doc = 'Set *MODE* to _fast_ ~now~ and see https://bare.example or <!here> & <@U9>';
    const s = snippet(3, doc);
    const m = answerMessage(
      result(
        { hops: [hop(1, [s])], evidence: [s] },
        { value: '*MODE*', sentence: doc, source: s, alternatives: [{ value: '_fast_', p: 0.3, snippet: s }] as never },
      ),
      {
        stateKey: null,
      },
    );
    const t = traceMessage(result({ hops: [hop(1, [s], { bridge: '*Bold* bridge' })] }));
    for (const blocks of [m.blocks, t.blocks]) {
      // no mrkdwn object carries the document's text: Slack would render or link it
      expect(JSON.stringify(textObjects(blocks).mrkdwn)).not.toMatch(
        /MODE|fast|bare\.example|<!here>|<@U9>|Bold\* bridge/,
      );
      // it is in rich text, as text elements (no link, mention or broadcast element made of it)
      const shown = (blocks as { type: string }[])
        .filter((b) => b.type === 'rich_text')
        .map((b) => richTextOf(b as never))
        .join('\n');
      expect(shown).toContain('https://bare.example or <!here> & <@U9>');
      expect([...richTextKinds(blocks)].filter((k) => !/^(rich_text_(section|quote|list)|text|link)$/.test(k))).toEqual(
        [],
      );
      expect(JSON.stringify(blocks)).not.toContain('"url":"https://bare.example');
    }
    expect(sections(m.blocks).join('\n')).toContain('**MODE**');
  });

  it('keeps every section within 3,000 characters and a huge answer within 50 blocks and the size budget', () => {
    const long = 'word '.repeat(5000);
    const many = Array.from({ length: 80 }, (_, i) => hop(i + 1, [snippet(i, long)]));
    const m = answerMessage(
      result({ hops: many, question: long }, { value: long, sentence: long, reasons: [] } as never),
      { stateKey: 'k', echoQuestion: true },
    );
    expect(m.blocks.length).toBeLessThanOrEqual(LIMITS.blocks);
    expect(JSON.stringify(m.blocks).length).toBeLessThanOrEqual(LIMITS.messageChars);
    for (const s of sections(m.blocks)) expect([...s].length).toBeLessThanOrEqual(LIMITS.sectionText);
    expect(m.text.length).toBeLessThanOrEqual(LIMITS.fallbackText);
    // the buttons survive the shortening
    expect(JSON.stringify(m.blocks)).toContain(ACTIONS.trace);
  });

  it('renders the trace of every hop within the limits', () => {
    const coherence = {
      cosine: 0.91,
      directional: 0.3,
      drift: 0.05,
      pRight: 0.83,
      gateThreshold: 0.5,
      passed: true,
      threshold: 0.75,
    };
    const r = result({
      hops: [
        hop(1, [snippet(1, 'x')], {
          nextQuery: 'next',
          coherence,
          candidates: [
            {
              entity: 'E',
              origin: 'evidence',
              chunkId: 1,
              sourceDocId: 1,
              linksTo: 'E doc',
              linkDocId: 2,
              features: { link: 1, lookahead: 0.5, idf: 0.8, relevance: 1, question: 0, mlm: null },
              score: 2.5,
              confidence: 0.7,
              query: 'next',
              formedBy: 'appended',
            },
          ],
        }),
        hop(2, [snippet(2, 'y')]),
      ],
    });
    const t = traceMessage(r);
    const text = sections(t.blocks).join('\n');
    expect(text).toContain('*Hop 1*');
    expect(text).toContain('coherence 0.910');
    expect(text).toContain('• E 2.50');
    expect(text).toContain('query: _query 1_');
    expect(t.blocks.length).toBeLessThanOrEqual(LIMITS.blocks);
  });

  it('cuts text on word boundaries without breaking an escape', () => {
    expect(safeText('a & b '.repeat(1000), 100).length).toBeLessThanOrEqual(100);
    expect(safeText('a & b '.repeat(1000), 100)).not.toMatch(/&(a|am)?…$/);
    expect(withinLimits({ text: 't', blocks: [] }).blocks).toEqual([]);
    expect(JSON.stringify(usageMessage().blocks)).toContain('/ragask help');
  });
});

describe('durations in messages', () => {
  it('says minutes under an hour and for parts of hours, hours for whole hours, never "0 h"', () => {
    expect(humanDuration(10 * 60_000)).toBe('10 min');
    expect(humanDuration(20_000)).toBe('1 min');
    expect(humanDuration(90 * 60_000)).toBe('90 min');
    expect(humanDuration(3600_000)).toBe('1 h');
    expect(humanDuration(24 * 3600_000)).toBe('24 h');
  });
});
