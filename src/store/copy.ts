import type { ProgressReporter } from '../progress.js';
import type { DocumentWrite, Store } from './interfaces.js';
import type { Scope } from './access.js';
import type { DocumentRow } from './types.js';

/** Documents per transaction of the copy: whole documents, as ingest writes them. */
const COPY_BATCH = 50;

export interface CopyReport {
  copied: number;
  /** Already in the target with the same content (an interrupted copy run again). */
  unchanged: number;
  /** Documents whose stored scope cannot be read: not copied, so never shown more widely than before. */
  unreadableScope: string[];
  windows: number;
  seconds: number;
}

/**
 * Copies every document of one store into another, with its chunks, window vectors (not
 * re-embedded) and access scope, a batch of whole documents per transaction. A document already in
 * the target with the same content hash is left as it is, so an interrupted copy is finished by
 * running it again. Both stores must hold vectors of the same model.
 */
export async function copyStore(from: Store, to: Store, progress?: ProgressReporter): Promise<CopyReport> {
  const t0 = performance.now();
  if (from.model !== to.model) throw new Error(`the stores hold different models (${from.model}, ${to.model})`);
  const report: CopyReport = { copied: 0, unchanged: 0, unreadableScope: [], windows: 0, seconds: 0 };
  // a copy into an empty store builds the target's vector index once, at the end (Store.beginBulkLoad)
  const bulk = await to.vectors.beginBulkLoad();
  try {
    await copyDocuments(from, to, report, progress);
  } finally {
    if (bulk) await to.vectors.finishBulkLoad();
  }
  await to.caches.syncIndex();
  progress?.stop();
  report.seconds = (performance.now() - t0) / 1000;
  return report;
}

/** Every document the target does not hold as it is, a batch of COPY_BATCH per transaction. */
async function copyDocuments(from: Store, to: Store, report: CopyReport, progress?: ProgressReporter): Promise<void> {
  const docs = await from.documents.listDocuments();
  progress?.start(docs.length, 'copy');
  let batch: DocumentWrite[] = [];
  const flush = async () => {
    if (batch.length === 0) return;
    await to.documents.replaceDocuments(batch);
    report.copied += batch.length;
    batch = [];
  };
  for (const [i, d] of docs.entries()) {
    if (d.scope === null) {
      report.unreadableScope.push(d.source);
      continue;
    }
    const existing = await to.documents.getDocumentBySource(d.source);
    if (existing && existing.contentHash === d.contentHash) {
      report.unchanged++;
      progress?.update(i + 1);
      continue;
    }
    const write = await documentWrite(from, d, d.scope);
    report.windows += write.chunks.reduce((n, c) => n + c.windows.length, 0);
    batch.push(write);
    if (batch.length >= COPY_BATCH) await flush();
    progress?.update(i + 1);
  }
  await flush();
}

/** A stored document as the write of it: its chunks and window vectors as they are. */
async function documentWrite(from: Store, d: DocumentRow, scope: Scope): Promise<DocumentWrite> {
  const chunks = await from.documents.chunksOfDocument(d.id);
  const windows = await from.vectors.windowsOfChunks(chunks.map((c) => c.id));
  const byChunk = new Map<number, typeof windows>();
  for (const w of windows) byChunk.set(w.chunkId, [...(byChunk.get(w.chunkId) ?? []), w]);
  return {
    doc: {
      source: d.source,
      path: d.path,
      title: d.title,
      kind: d.kind,
      url: d.url,
      contentHash: d.contentHash,
      bytes: d.bytes,
      scope,
    },
    chunks: chunks.map((c) => ({
      ord: c.ord,
      kind: c.kind,
      headingPath: c.headingPath,
      page: c.page,
      text: c.text,
      tokenCount: c.tokenCount,
      density: c.density,
      entities: c.entities,
      entry: c.entry,
      anchor: c.anchor ?? null,
      windows: (byChunk.get(c.id) ?? []).map((w) => ({
        ord: w.ord,
        charStart: w.charStart,
        charEnd: w.charEnd,
        tokenCount: w.tokenCount,
        vector: w.vector,
      })),
    })),
  };
}
