import { describe, expect, it } from 'vitest';
import { cellValues, evidencePassages, passageTitle } from '../../../src/engine/answer/passages.js';
import type { Snippet } from '../../../src/engine/types.js';
import type { ChunkRow } from '../../../src/store/types.js';

const doc = { title: 'Working with Git', source: 'git.md', path: 'git.md', url: null, kind: 'markdown' as const };
const chunk = (id: number, kind: string, text: string, headingPath = ['Default branch']): ChunkRow => ({
  id,
  docId: 1,
  ord: id,
  kind,
  headingPath,
  page: null,
  text,
  tokenCount: 10,
  density: 1,
  entities: [],
  entry: null,
  doc,
});
const snippetOf = (c: ChunkRow): Snippet => ({
  chunkId: c.id,
  docId: c.docId,
  windowId: null,
  text: c.text,
  score: 1,
  citation: { document: doc.title, heading_path: c.headingPath } as unknown as Snippet['citation'],
});
/** The passages read for evidence of these chunks, as chunk ids, with the store holding `all`. */
async function readIds(all: ChunkRow[], retrieved: number[]): Promise<number[]> {
  const byId = new Map(all.map((c) => [c.id, c]));
  const chunksOf = async (ids: number[]) =>
    new Map(ids.flatMap((id) => (byId.has(id) ? [[id, byId.get(id)!] as const] : [])));
  const evidence = retrieved.map((id) => snippetOf(byId.get(id)!));
  return (await evidencePassages([], evidence, chunksOf, 6)).map((p) => p.snippet.chunkId);
}

describe('passages for the reader', () => {
  it('lets an answer of a table row stand only inside one cell value, never across cells or in a header', () => {
    const row = 'Name: Mirela Ostrowski; Role: Project lead, Falcon; Office: Tromsø';
    expect(cellValues(row).map(([a, b]) => row.slice(a, b))).toEqual([
      'Mirela Ostrowski',
      'Project lead, Falcon',
      'Tromsø',
    ]);
    const plain = 'FC-3 | 3.2.1 | fixed the watchdog';
    expect(cellValues(plain).map(([a, b]) => plain.slice(a, b))).toEqual(['FC-3', '3.2.1', 'fixed the watchdog']);
    expect(cellValues('Offset: +0.35 °C').map(([a, b]) => 'Offset: +0.35 °C'.slice(a, b))).toEqual(['+0.35 °C']);
  });

  it('titles a chunk by its document and the headings under which it stands', () => {
    expect(passageTitle({ headingPath: ['Calibration', 'Cold range'], doc: { title: 'Vantor TS-40' } })).toBe(
      'Vantor TS-40 > Calibration > Cold range',
    );
    expect(passageTitle({ headingPath: ['Vantor TS-40'], doc: { title: 'Vantor TS-40' } })).toBe('Vantor TS-40');
  });

  it('reads the code block a paragraph leads into, and nothing else around a plain paragraph', async () => {
    const store = [
      chunk(9, 'code', 'git branch -m master main'),
      chunk(10, 'paragraph', 'To make git use main for new repositories, run:'),
      chunk(11, 'code', 'git config --global init.defaultBranch main'),
      chunk(12, 'paragraph', 'Your default branch should be called main.'),
      chunk(13, 'code', 'git push -u origin main'),
      chunk(20, 'paragraph', 'Migrate an old repository as follows:'),
      chunk(21, 'code', 'git push origin --delete master', ['Another section']),
    ];
    // the lead-in brings the block after it, not the one before
    expect(await readIds(store, [10])).toEqual([10, 11]);
    // a paragraph that leads into nothing reads alone
    expect(await readIds(store, [12])).toEqual([12]);
    // a block under another heading is not what the lead-in introduces
    expect(await readIds(store, [20])).toEqual([20]);
  });
});
