import { ENGINE_DEFAULTS } from '../defaults.js';
import type { ChunkRow } from '../../store/types.js';
import type { HopState, Snippet } from '../types.js';
import { citationOf } from '../snippet.js';
import type { ReaderPassage } from '../../models/reader-types.js';

/** A passage of the final evidence as the reader reads it, with where it came from in the chain. */
export interface EvidencePassage {
  /** The cited snippet of the passage (its citation and retrieval score). */
  snippet: Snippet;
  /** The whole chunk: what the reader reads and what span offsets point into. */
  text: string;
  title: string;
  /** The hop that first retrieved it (1-based), and that hop's chain weight (bridge confidence). */
  hop: number;
  weight: number;
  /** Retrieved by a hop nobody had to guess: the question itself, a follow-up, or a person's choice. */
  confirmed: boolean;
  /** Position in the final evidence list (0 = first). */
  rank: number;
  /** For a table row: the character ranges of its cell values, where an answer may stand. */
  answerRanges?: [number, number][];
}

/** Passages the reader reads by default: the top of the final evidence (and every hop's best). */
export const READER_PASSAGES = ENGINE_DEFAULTS.readerPassages;
/**
 * Rows of its table read beside a retrieved table row, each way: a row is retrieved by what it
 * shares with the question ("Description: Number of requests allowed on a persistent
 * connection"), and the value asked for often stands in the next row ("Default: … 100").
 */
const TABLE_CONTEXT_ROWS = 6;
/** Chunks of the same entry read beside a retrieved one, each way: its description, values and notes are one entry. */
const ENTRY_CONTEXT_CHUNKS = 3;
/** Rows and entry chunks added in all, so that a question over several tables or entries stays within the reader's time. */
const CONTEXT_MAX = 12;

const CONFIRMED_ORIGINS = new Set(['question', 'follow-up', 'suggestion']);

/** How a chunk is titled for the reader: its document title and heading path. */
export function passageTitle(chunk: Pick<ChunkRow, 'headingPath'> & { doc: { title: string } }): string {
  const headings = chunk.headingPath.filter((h) => h && h !== chunk.doc.title);
  return [chunk.doc.title, ...headings].join(' > ');
}

/**
 * The top `n` passages of the final evidence, each hop's best snippet among them (the chain the
 * answer rests on must be read even when the merged ranking puts it lower), in evidence order.
 */
export async function evidencePassages(
  hops: readonly HopState[],
  evidence: readonly Snippet[],
  chunksOf: (ids: number[]) => Promise<ReadonlyMap<number, ChunkRow>>,
  n = READER_PASSAGES,
): Promise<EvidencePassage[]> {
  const firstHop = new Map<number, HopState>();
  for (const h of hops) for (const r of h.retrieved) if (!firstHop.has(r.chunkId)) firstHop.set(r.chunkId, h);
  const chain = new Set(hops.map((h) => h.snippets[0]?.chunkId).filter((id): id is number => id !== undefined));
  const picked = evidence.filter((s, i) => i < n || chain.has(s.chunkId));
  const chunks = await chunksOf(picked.map((s) => s.chunkId));
  const rows = await groupContext(picked, chunks, chunksOf);
  const out: EvidencePassage[] = [];
  const seen = new Set<number>();
  let added = 0;
  const add = (s: Snippet, chunk: ChunkRow, rank: number) => {
    if (seen.has(chunk.id)) return;
    seen.add(chunk.id);
    const h = firstHop.get(s.chunkId);
    out.push({
      snippet: s,
      text: chunk.text,
      title: passageTitle(chunk),
      hop: h?.hop ?? 1,
      weight: h?.weight ?? 1,
      confirmed: h ? CONFIRMED_ORIGINS.has(h.formedBy) : true,
      rank,
      ...(chunk.kind === 'table_row' ? { answerRanges: cellValues(chunk.text) } : {}),
    });
  };
  for (const s of picked) {
    const chunk = chunks.get(s.chunkId);
    if (!chunk) continue;
    const rank = evidence.indexOf(s);
    add(s, chunk, rank);
    // the rest of its table or entry, in document order, cited as its own chunks
    for (const row of rows.get(chunk.id) ?? []) {
      if (added >= CONTEXT_MAX) break;
      const before = out.length;
      add({ ...s, chunkId: row.id, windowId: null, text: row.text, citation: citationOf(row) }, row, rank);
      added += out.length - before;
    }
  }
  return out;
}

/** A paragraph that leads into what follows it ("…, then run:"): the code block after it is what it says. */
const leadsIn = (c: ChunkRow) => c.kind !== 'code' && c.kind !== 'table_row' && c.text.trimEnd().endsWith(':');

/** How far a chunk's group reaches each way: a table's rows, an entry's chunks, or a lead-in's code block. */
const reachOf = (c: ChunkRow) =>
  c.kind === 'table_row' ? TABLE_CONTEXT_ROWS : c.entry ? ENTRY_CONTEXT_CHUNKS : leadsIn(c) ? 1 : 0;

/** Whether `b` is of `a`'s group: a row of the same table, or a chunk of the same entry, in the same document. */
function sameGroup(a: ChunkRow, b: ChunkRow | undefined): boolean {
  if (!b || b.docId !== a.docId) return false;
  if (!a.entry && a.kind !== 'table_row')
    return b.id === a.id + 1 && b.kind === 'code' && b.headingPath.join('\u0000') === a.headingPath.join('\u0000');
  if (a.kind === 'table_row')
    return b.kind === 'table_row' && b.headingPath.join('\u0000') === a.headingPath.join('\u0000');
  return !!a.entry && b.entry?.term === a.entry.term && b.entry.kind === a.entry.kind;
}

/**
 * The chunks of the same group around each retrieved chunk, next to it in order: the rows of its
 * table (TABLE_CONTEXT_ROWS each way), or the other chunks of its entry (ENTRY_CONTEXT_CHUNKS each
 * way: a parameter's description, its default and its notes). Chunk ids of a document are
 * consecutive in its order.
 */
async function groupContext(
  picked: readonly Snippet[],
  chunks: ReadonlyMap<number, ChunkRow>,
  chunksOf: (ids: number[]) => Promise<ReadonlyMap<number, ChunkRow>>,
): Promise<Map<number, ChunkRow[]>> {
  const grouped = picked.map((s) => chunks.get(s.chunkId)).filter((c): c is ChunkRow => !!c && reachOf(c) > 0);
  const out = new Map<number, ChunkRow[]>();
  if (!grouped.length) return out;
  const ids = new Set<number>();
  for (const r of grouped)
    for (let d = -reachOf(r); d <= reachOf(r); d++) if (d !== 0 && r.id + d > 0) ids.add(r.id + d);
  const near = await chunksOf([...ids]);
  for (const r of grouped) {
    const around: ChunkRow[] = [];
    for (let id = r.id - 1; id >= r.id - reachOf(r) && sameGroup(r, near.get(id)); id--) around.unshift(near.get(id)!);
    for (let id = r.id + 1; id <= r.id + reachOf(r) && sameGroup(r, near.get(id)); id++) around.push(near.get(id)!);
    out.set(r.id, around);
  }
  return out;
}

export function readerInput(passages: readonly EvidencePassage[]): ReaderPassage[] {
  return passages.map((p) => ({
    title: p.title,
    text: p.text,
    ...(p.answerRanges ? { answerRanges: p.answerRanges } : {}),
  }));
}

/**
 * The value ranges of a table row as the chunker writes it ("Header: value; Header: value", or
 * "a | b | c" without a header row): each cell's value, without its header.
 */
export function cellValues(row: string): [number, number][] {
  const sep = row.includes('; ') ? '; ' : ' | ';
  const out: [number, number][] = [];
  let at = 0;
  for (const part of row.split(sep)) {
    const colon = sep === '; ' || !row.includes(' | ') ? part.indexOf(': ') : -1;
    const start = at + (colon >= 0 ? colon + 2 : 0);
    const end = at + part.length;
    if (end > start) out.push([start, end]);
    at = end + sep.length;
  }
  return out;
}
