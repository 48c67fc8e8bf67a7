import fs from 'node:fs';
import path from 'node:path';
import type { Config } from '../../config.js';
import { openCore, type Core } from '../../core.js';
import type { EvalDataset } from '../../eval/dataset.js';
import { writeFiller, type FillerPassage } from '../../eval/scale.js';
import { ingest } from '../../ingest/ingest.js';
import type { BatchEncoder } from '../../ingest/types.js';
import { withIngestEncoder } from '../../workers/encoder-pool.js';
import { windowEmbeddingText } from '../../ingest/windows.js';
import type { ProgressReporter } from '../../progress.js';
import { progressBar } from '../progress.js';

/**
 * What a scale store's build has done, kept beside it (`scale.json`) so a killed build resumes at
 * its last whole batch, and its ingest rate counts every batch of every run that built it.
 */
export interface BuildMarker {
  key: string;
  /** The next filler passage to add. */
  nextFiller: number;
  /** Windows of the evaluation corpus alone (before any filler). */
  windows: number;
  /** Filler windows written by whole batches, and the seconds those batches took (ingest, index saves included). */
  fillerWindows?: number;
  fillerSeconds?: number;
  /** The encoder alone on the newest windows, in ingest's batches, measured when the build last grew. */
  rawEncodeWindowsPerS?: number;
}

const MARKER = 'scale.json';
/**
 * Filler passages per ingest call (about 2.5 windows each): the index is saved after each, so a kill
 * loses at most one. Larger for larger stores, where a save takes seconds: 4,000 up to 400k windows,
 * a hundredth of the size past it (10,000 passages, about 25k windows, at a million).
 */
const fillerBatch = (size: number) => Math.max(4000, Math.round(size / 100));
/** Windows the encoder's limit is measured on, in ingest's batches of 256. */
const RAW_SAMPLE = 2560;
const RAW_BATCH = 256;

export function readMarker(dir: string): BuildMarker | null {
  const f = path.join(dir, MARKER);
  return fs.existsSync(f) ? (JSON.parse(fs.readFileSync(f, 'utf8')) as BuildMarker) : null;
}

/** The encoder alone on the store's newest windows (the filler just written), in ingest's batches. */
async function encoderLimit(core: Core): Promise<number> {
  const texts = (await core.store.vectors.windowTexts(RAW_SAMPLE)).map((w) =>
    windowEmbeddingText(w.title, w.headingPath, w.text),
  );
  await core.encoder.encode(texts.slice(0, 8));
  const t0 = performance.now();
  for (let i = 0; i < texts.length; i += RAW_BATCH) await core.encoder.encode(texts.slice(i, i + RAW_BATCH));
  return +(texts.length / ((performance.now() - t0) / 1000)).toFixed(1);
}

/** The whole build's bar: windows toward the size, moved within a batch as its passages are stored. */
function overallBar(size: number): {
  bar: ProgressReporter;
  inner: (from: number, perPassage: number) => ProgressReporter;
} {
  const bar = progressBar();
  const inner = (from: number, perPassage: number): ProgressReporter => ({
    start() {},
    update(done) {
      bar.update(Math.min(size, Math.round(from + done * perPassage)));
    },
    stop() {},
  });
  return { bar, inner };
}

/**
 * Grows the building store to at least `size` windows (the evaluation corpus first, then filler)
 * and snapshots it as `<root>/<size>`; a snapshot made by the same recipe is kept and reused. A
 * killed build resumes from its last whole batch (a batch half written is skipped as unchanged).
 */
export async function ensureStore(
  config: Config,
  dataset: EvalDataset,
  pool: readonly FillerPassage[],
  opts: { root: string; size: number; key: string; err: (s: string) => void },
): Promise<string> {
  const { root, size, key, err } = opts;
  const target = path.join(root, String(size));
  if (readMarker(target)?.key === key) return target;
  const building = path.join(root, 'building');
  if (readMarker(building)?.key !== key) fs.rmSync(building, { recursive: true, force: true });
  fs.mkdirSync(path.join(building, 'filler'), { recursive: true });
  const marker: BuildMarker = readMarker(building) ?? { key, nextFiller: 0, windows: 0 };
  const core = await openCore({ ...config, dataDir: building }, undefined, { indexProgress: progressBar() });
  try {
    if (marker.windows === 0 && marker.nextFiller === 0) {
      err(`scale: ingesting ${dataset.name}\n`);
      await ingest({ store: core.store, encoder: core.encoder, config, progress: progressBar() }, dataset.inputs, {
        exclude: [path.join(dataset.dir, 'questions.jsonl')],
      });
    }
    let windows = (await core.store.documents.counts()).windows;
    if (windows < size) {
      err(`scale: ${windows} of ${size} windows; adding filler (resumes here if killed)\n`);
      await withIngestEncoder(config, core.encoder.dimension, (batchEncoder) =>
        addFiller(core, { config, batchEncoder }, pool, { building, marker, size, windows }),
      );
      marker.rawEncodeWindowsPerS = await encoderLimit(core);
      fs.writeFileSync(path.join(building, MARKER), JSON.stringify(marker));
    }
    windows = (await core.store.documents.counts()).windows;
  } finally {
    await core.close();
  }
  fs.rmSync(target, { recursive: true, force: true });
  fs.cpSync(building, target, { recursive: true, filter: (src) => !src.includes(`${path.sep}filler`) });
  fs.writeFileSync(path.join(target, MARKER), JSON.stringify(marker));
  return target;
}

/** Filler batches until the store holds `size` windows; the marker is written after each whole batch. */
async function addFiller(
  core: Core,
  { config, batchEncoder }: { config: Config; batchEncoder: BatchEncoder | undefined },
  pool: readonly FillerPassage[],
  state: { building: string; marker: BuildMarker; size: number; windows: number },
): Promise<void> {
  const { building, marker, size } = state;
  let windows = state.windows;
  const { bar, inner } = overallBar(size);
  bar.start(size, `scale store, ${size} windows`);
  bar.update(windows);
  try {
    while (windows < size) {
      if (marker.nextFiller === 0) marker.windows = windows;
      const filler = windows - marker.windows;
      // windows per filler passage so far (about 2.5 for Wikipedia paragraphs) sizes the next batch;
      // the first batch is a small probe, so the estimate is measured before it is relied on
      const perPassage = marker.nextFiller > 0 ? Math.max(0.5, filler / marker.nextFiller) : 2.5;
      const want = Math.min(
        marker.nextFiller === 0 ? 500 : fillerBatch(size),
        Math.max(50, Math.ceil((size - windows) / perPassage)),
      );
      const file = path.join(building, 'filler', `part-${String(marker.nextFiller).padStart(7, '0')}.jsonl`);
      writeFiller(file, pool, marker.nextFiller, marker.nextFiller + want);
      const t0 = performance.now();
      await ingest(
        { store: core.store, encoder: core.encoder, batchEncoder, config, progress: inner(windows, perPassage) },
        [file],
      );
      const now = (await core.store.documents.counts()).windows;
      marker.fillerSeconds = +((marker.fillerSeconds ?? 0) + (performance.now() - t0) / 1000).toFixed(1);
      marker.fillerWindows = (marker.fillerWindows ?? 0) + (now - windows);
      marker.nextFiller += want;
      windows = now;
      fs.writeFileSync(path.join(building, MARKER), JSON.stringify(marker));
      fs.rmSync(file, { force: true });
      bar.update(Math.min(size, windows));
    }
  } finally {
    bar.stop();
  }
}
