import path from 'node:path';
import { errorMessage } from '../errors.js';
import { silentLogger } from '../log.js';
import { analyze, entitiesOf, evidenceDensity } from '../models/nlp.js';
import type { ChunkInput, DocumentInput, DocumentKind } from '../store/types.js';
import type { Store } from '../store/interfaces.js';
import { PUBLIC_SCOPE } from '../store/access.js';
import { chunkBlocks, type ChunkDraft } from './chunker.js';
import { parseText } from './parsers/text.js';
import { resolveInputs, type InputFailure } from './sources.js';
import { unzipInputs } from './exports/zip.js';
import { makeWindows, windowEmbeddingText } from './windows.js';
import { readOnlyChanged } from './repo-diff.js';
import { type Unit, collectUnits, citationLink, sha256, EmptyDocument, fingerprintOf } from './units.js';
import type { IngestDeps, IngestOptions, IngestReport } from './types.js';

interface Prepared {
  unit: Unit;
  doc: DocumentInput;
  chunks: ChunkInput[];
  texts: string[];
  existed: boolean;
}

const BATCH_WINDOWS = 256;
/**
 * The index is saved during a long ingest at least this far apart, and at least SAVE_SPACING times as
 * long as its last save took: a million-window index takes seconds to write, and saving it every 15 s
 * would cost a third of the ingest. A kill loses no document (SQLite holds them, and the index replays
 * its log on open), only the replay of what was added since the last save.
 */
const INDEX_SAVE_EVERY_MS = 15_000;
const SAVE_SPACING = 20;

/**
 * Ingests files and folders: parse → semantic chunks → 50-token windows → embeddings → one store
 * transaction per batch of whole documents → HNSW. Unchanged documents (same content hash) are
 * skipped, changed ones replaced; a bad file is reported and the rest of the batch goes on.
 */
export async function ingest(
  deps: IngestDeps,
  inputs: readonly string[],
  opts: IngestOptions = {},
): Promise<IngestReport> {
  const t0 = performance.now();
  const log = deps.log ?? silentLogger;
  const report = emptyReport();
  const fail = (f: InputFailure) => {
    report.failed.push(f);
    // the report carries each failure to the caller, which says it to the person in one line (the
    // CLI logs at warn); the log keeps it for a service at info
    log.info({ file: f.file, line: f.line, reason: f.reason }, 'ingest: skipped');
  };
  const unzipped = await unzipInputs(inputs);
  unzipped.failures.forEach(fail);
  const resolved = resolveInputs(unzipped.inputs, opts.exclude ?? [], unzipped.aliases);
  resolved.failures.forEach(fail);
  // a repository cited by its hosted view is read as git says it changed since its last ingest
  const repos = opts.webUrl
    ? await readOnlyChanged(resolved.files, deps.store, fingerprintOf(deps.config))
    : { files: resolved.files, unread: [], record: async () => {} };
  const { units, seen } = await collectUnits(repos.files, {
    deps,
    fail,
    linkFor: citationLink(resolved.roots, opts.baseUrl ?? null, opts.webUrl ?? null),
    slugHeadings: !!opts.webUrl,
    skip: (f) => report.skipped.push(f),
  });
  for (const s of repos.unread) seen.add(s);
  report.unchanged += repos.unread.length;
  await storeUnits(units, deps, opts, report, fail);
  if (!report.interrupted && report.failed.length === 0) await repos.record();
  if (opts.prune && !report.interrupted) await pruneMissing(resolved.roots, seen, deps.store, report);
  await deps.store.index.flush();
  deps.progress?.stop();
  report.seconds = (performance.now() - t0) / 1000;
  log.info({ ...report, failed: report.failed.length }, 'ingest done');
  return report;
}

/**
 * A document that arrives as text through an API, not as a file (a Slack thread): its source names
 * it for good (re-ingesting the same source replaces it), its text is read as plain text.
 */
export interface TextDocument {
  source: string;
  title: string;
  text: string;
  url: string | null;
  kind: DocumentKind;
}

/**
 * Ingests documents given as text, as `ingest` does files: unchanged ones (same text) are skipped,
 * changed ones replaced, in batches, with the run's scope (or the default for new ones).
 */
export async function ingestDocuments(
  deps: IngestDeps,
  docs: readonly TextDocument[],
  opts: Pick<IngestOptions, 'signal' | 'scope'> = {},
): Promise<IngestReport> {
  const t0 = performance.now();
  const report = emptyReport();
  const fingerprint = fingerprintOf(deps.config);
  const units: Unit[] = docs.map((d) => ({
    source: d.source,
    path: d.source,
    kind: d.kind,
    hash: sha256(JSON.stringify([d.title, d.text, d.url, fingerprint])),
    bytes: Buffer.byteLength(d.text),
    fallbackTitle: d.title,
    url: d.url,
    load: async () => ({ title: d.title, url: d.url, blocks: parseText(d.text).blocks }),
  }));
  await storeUnits(units, deps, opts, report, (f) => report.failed.push(f));
  await deps.store.index.flush();
  deps.progress?.stop();
  report.seconds = (performance.now() - t0) / 1000;
  return report;
}

function emptyReport(): IngestReport {
  return {
    added: 0,
    updated: 0,
    unchanged: 0,
    rescoped: 0,
    removed: 0,
    failed: [],
    skipped: [],
    chunks: 0,
    windows: 0,
    seconds: 0,
    interrupted: false,
  };
}

/**
 * Stores the units in batches; a first load into an empty store lets the backend build its vector
 * index once at the end (`beginBulkLoad`), and builds it whatever happened to the load.
 */
async function storeUnits(
  units: readonly Unit[],
  deps: IngestDeps,
  opts: IngestOptions,
  report: IngestReport,
  fail: (f: InputFailure) => void,
): Promise<void> {
  const bulk = await deps.store.vectors.beginBulkLoad();
  try {
    await writeUnits(units, deps, opts, report, fail);
  } finally {
    if (bulk) {
      // a phase of its own on the progress line: seconds to minutes, by the size of the load
      deps.progress?.stop();
      deps.progress?.start(1, 'vector index');
      deps.log?.info('ingest: building the vector index over the first load');
      await deps.store.vectors.finishBulkLoad();
      deps.progress?.update(1);
    }
  }
}

/**
 * Parses, embeds and writes the units that changed, in batches of whole documents (one transaction
 * each); unchanged ones are skipped (a new --scope still applies to them). Stops between batches
 * when aborted: what is written stays consistent and the next run resumes.
 */
async function writeUnits(
  units: readonly Unit[],
  deps: IngestDeps,
  opts: IngestOptions,
  report: IngestReport,
  fail: (f: InputFailure) => void,
): Promise<void> {
  const { store } = deps;
  deps.progress?.start(units.length, 'ingest');
  let done = 0;
  const counted = (n: number) => {
    done += n;
    deps.progress?.update(done);
  };
  const batches = batchPipeline(deps, opts, report, counted);
  let batch: Prepared[] = [];
  let batchWindows = 0;
  const flush = async () => {
    const ready = batch;
    batch = [];
    batchWindows = 0;
    await batches.hand(ready);
  };
  for (const unit of units) {
    if (opts.signal?.aborted) {
      await batches.written();
      report.interrupted = true;
      return;
    }
    const existing = await store.documents.getDocumentBySource(unit.source);
    if (existing && existing.contentHash === unit.hash) {
      if (opts.scope && JSON.stringify(existing.scope) !== JSON.stringify(opts.scope)) {
        await store.access.setScope([existing.id], opts.scope);
        report.rescoped++;
      }
      report.unchanged++;
      counted(1);
      continue;
    }
    try {
      const prepared = await prepare(unit, deps, !!existing);
      batch.push(prepared);
      batchWindows += prepared.texts.length;
    } catch (e) {
      const f = { file: unit.path, ...(unit.line ? { line: unit.line } : {}), reason: errorMessage(e) };
      if (e instanceof EmptyDocument) report.skipped.push(f);
      else fail(f);
      counted(1);
      continue;
    }
    if (batchWindows >= BATCH_WINDOWS) await flush();
  }
  await flush();
  await batches.written();
}

/**
 * Batches flow through two stages: encoding, then writing (one transaction, then the index, saved
 * now and then). A batch is encoded while the one before it is written and the next one is parsed:
 * with the encoder in a worker thread (deps.batchEncoder) the stages overlap on any store; a database
 * server (PostgreSQL) also writes in its own process. Batches are written in order, one at a time,
 * and `hand` returns once the batch before is written, so at most one encoded batch waits.
 */
function batchPipeline(
  deps: IngestDeps,
  opts: IngestOptions,
  report: IngestReport,
  counted: (documents: number) => void,
): { hand(batch: Prepared[]): Promise<void>; written(): Promise<void> } {
  let lastSave = performance.now();
  let saveMs = 0;
  let pipeline: Promise<void> = Promise.resolve();
  let failure: { error: unknown } | null = null;
  /** A failed encode or write fails the ingest at the next hand or wait, as an unpipelined one would have. */
  const check = () => {
    if (failure) throw failure.error;
  };
  const write = async (batch: Prepared[]) => {
    await writeBatch(batch, deps, opts, report);
    counted(batch.length);
    if (performance.now() - lastSave > Math.max(INDEX_SAVE_EVERY_MS, SAVE_SPACING * saveMs)) {
      const t = performance.now();
      await deps.store.index.flush();
      lastSave = performance.now();
      saveMs = lastSave - t;
    }
  };
  return {
    async hand(batch) {
      if (batch.length === 0) return;
      const encoded = embedBatch(batch, deps);
      const before = pipeline;
      pipeline = (async () => {
        await encoded;
        await before;
        if (!failure) await write(batch);
      })().catch((error: unknown) => {
        failure ??= { error };
      });
      await before;
      check();
    },
    async written() {
      await pipeline;
      check();
    },
  };
}

/** Each window of a batch gets its vector. */
async function embedBatch(batch: readonly Prepared[], deps: IngestDeps): Promise<void> {
  const vectors = await (deps.batchEncoder ?? deps.encoder).encode(batch.flatMap((p) => p.texts));
  let k = 0;
  for (const p of batch) for (const c of p.chunks) for (const w of c.windows) w.vector = vectors[k++]!;
}

/** Writes a batch's documents in one transaction, then brings the index up to date. */
async function writeBatch(
  batch: readonly Prepared[],
  deps: IngestDeps,
  opts: IngestOptions,
  report: IngestReport,
): Promise<void> {
  const { store, config } = deps;
  await store.documents.replaceDocuments(
    batch.map((p) => ({ doc: opts.scope ? { ...p.doc, scope: opts.scope } : p.doc, chunks: p.chunks })),
    config.defaultScope ?? PUBLIC_SCOPE,
  );
  for (const p of batch) {
    if (p.existed) report.updated++;
    else report.added++;
    report.chunks += p.chunks.length;
    report.windows += p.texts.length;
  }
  await store.caches.syncIndex();
}

/** Removes stored documents under the inputs that this run no longer saw. */
async function pruneMissing(
  roots: readonly string[],
  seen: ReadonlySet<string>,
  store: Store,
  report: IngestReport,
): Promise<void> {
  for (const root of roots) {
    // a folder or a .jsonl covers what lies under it; a single file, only itself ("a.md", not "a.mdx")
    const under =
      root.endsWith(path.sep) || root.endsWith('#')
        ? await store.documents.sourcesUnder(root)
        : (await store.documents.sourcesUnder(root)).filter((d) => d.source === root);
    for (const d of under) {
      if (seen.has(d.source)) continue;
      await store.documents.deleteDocument(d.id);
      report.removed++;
    }
  }
  await store.caches.syncIndex();
}

/** What a window is embedded under: its headings, and its entry's term where no heading names it. */
function contextOf(d: ChunkDraft): string[] {
  return d.entry && !d.headingPath.includes(d.entry.term) ? [...d.headingPath, d.entry.term] : d.headingPath;
}

async function prepare(unit: Unit, deps: IngestDeps, existed: boolean): Promise<Prepared> {
  const { encoder, config } = deps;
  const parsed = await unit.load();
  const title = parsed.title || unit.fallbackTitle;
  const tokenizer = encoder.tokenizer;
  const countTokens = (s: string) => s.split(/\s+/).reduce((n, w) => n + (w ? tokenizer.wordPieces(w).length : 0), 0);
  const drafts = chunkBlocks(parsed.blocks, { maxTokens: config.chunkMaxTokens, countTokens, title });
  const isCommonWord = (w: string) => tokenizer.wordPieces(w.toLowerCase()).length === 1;
  if (drafts.length === 0) throw new EmptyDocument('no text found (empty, or only markup/images): nothing to ingest');
  const chunks: ChunkInput[] = [];
  const texts: string[] = [];
  drafts.forEach((d, ord) => {
    const analysis = analyze(d.text);
    const windows = makeWindows(d.text, tokenizer, config.windowTokens, config.windowOverlap);
    chunks.push({
      ord,
      kind: d.kind,
      headingPath: [...(parsed.trail ?? []), ...d.headingPath],
      page: d.page,
      text: d.text,
      tokenCount: countTokens(d.text),
      density: evidenceDensity(analysis),
      entities: entitiesOf(analysis, { isCommonWord }),
      entry: d.entry,
      anchor: d.anchor ?? null,
      windows: windows.map((w) => ({ ...w, vector: new Float32Array(0) })),
    });
    const context = [...(parsed.trail ?? []), ...contextOf(d)];
    for (const w of windows) texts.push(windowEmbeddingText(title, context, d.text.slice(w.charStart, w.charEnd)));
  });
  return {
    unit,
    existed,
    doc: {
      source: unit.source,
      path: unit.path,
      title,
      kind: unit.kind,
      url: parsed.url ?? unit.url,
      contentHash: unit.hash,
      bytes: unit.bytes,
    },
    chunks,
    texts,
  };
}
