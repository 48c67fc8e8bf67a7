import { describe, expect, it } from 'vitest';
import type { Candidate } from '../../src/engine/retrieve.js';
import { snippetFrom } from '../../src/engine/snippet.js';
import type { ChunkRow } from '../../src/store/types.js';

// A cited snippet reads as whole sentences: the window is widened to the sentences it cuts (wink's
// sentence splitter, the chunker's), within a bound, and an ellipsis marks where it still cuts.

const TEXT =
  'The relay forwards alarms to the control room. Its backup battery lasts 90 days at 2.4 GHz. ' +
  'Replace it every spring. The housing is rated IP67.';

function candidate(text: string, charStart: number, charEnd: number): Candidate {
  const chunk = {
    id: 1,
    docId: 1,
    ord: 0,
    kind: 'paragraph',
    headingPath: [],
    page: null,
    text,
    tokenCount: 30,
    density: 0,
    entities: [],
    entry: null,
    doc: { title: 'Relay', source: '/d/relay.md', path: '/d/relay.md', url: null, kind: 'markdown' },
  } satisfies ChunkRow;
  return {
    chunk,
    window: { windowId: 1, charStart, charEnd, score: 1 },
    score: 1,
    rerank: 1,
    dense: null,
    denseRank: null,
    bm25: null,
    bm25Rank: null,
    fused: 0,
  };
}

describe('snippetFrom', () => {
  it('widens a window that cuts two sentences to both, whole, with ellipses where the chunk goes on', () => {
    const start = TEXT.indexOf('backup');
    const end = TEXT.indexOf('every') + 'every'.length;
    expect(snippetFrom(candidate(TEXT, start, end)).text).toBe(
      '…Its backup battery lasts 90 days at 2.4 GHz. Replace it every spring.…',
    );
  });

  it('does not end a sentence inside a number ("2.4 GHz")', () => {
    const start = TEXT.indexOf('2.4');
    expect(snippetFrom(candidate(TEXT, start, start + 3)).text).toBe('…Its backup battery lasts 90 days at 2.4 GHz.…');
  });

  it('keeps the window edge where the sentence runs on past the bound', () => {
    const long = `Intro. ${'word '.repeat(60)}middle ${'word '.repeat(60)}end.`;
    const start = long.indexOf('middle');
    expect(snippetFrom(candidate(long, start, start + 'middle'.length)).text).toBe('…middle…');
  });
});
