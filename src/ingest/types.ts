/** The ingest's contract: what it is given, its options and its report. */
import type { Logger } from '../log.js';
import type { Scope } from '../store/access.js';
import type { InputFailure } from './sources.js';
import type { Config } from '../config.js';
import type { ProgressReporter } from '../progress.js';
import type { Encoder, Vector } from '../models/encoder.js';
import type { Store } from '../store/interfaces.js';

/** Encodes a batch of window texts into their vectors, in order. */
export interface BatchEncoder {
  encode(texts: readonly string[]): Promise<Vector[]>;
}

/** Progress of a long run; the CLI draws it as a bar with an ETA, tests may ignore it. */
export interface IngestDeps {
  store: Store;
  encoder: Encoder;
  /**
   * What encodes the batches, where not the encoder itself: the encoder in a worker thread
   * (src/workers/encoder-pool.ts), so the next batch is encoded while this one is written.
   */
  batchEncoder?: BatchEncoder;
  config: Pick<Config, 'windowTokens' | 'windowOverlap' | 'chunkMaxTokens' | 'maxFileBytes'> &
    Partial<Pick<Config, 'defaultScope'>>;
  log?: Logger;
  progress?: ProgressReporter;
}

export interface IngestOptions {
  /** Remove stored documents under the given inputs that no longer exist. */
  prune?: boolean;
  /** Link for citations: baseUrl + the path relative to the input folder. */
  baseUrl?: string | null;
  /** Link for a git clone's files: a template with {commit} and {path} (the hosted view at the ingested commit). */
  webUrl?: string | null;
  /** Stop between batches (Ctrl-C): what is written stays consistent and the next run resumes. */
  signal?: AbortSignal;
  /** Files never to ingest (e.g. a dataset's questions.jsonl beside its documents). */
  exclude?: readonly string[];
  /**
   * Who may see what this run ingests. Given, it applies to every document of the run, new,
   * changed or unchanged; absent, new documents get RAGASK_DEFAULT_SCOPE and others keep theirs.
   */
  scope?: Scope;
}

export interface IngestReport {
  added: number;
  updated: number;
  unchanged: number;
  /** Unchanged documents whose scope this run changed. */
  rescoped: number;
  removed: number;
  failed: InputFailure[];
  /** Documents with no text (an empty file, a page of front matter only): skipped with a warning, not failures. */
  skipped: InputFailure[];
  chunks: number;
  windows: number;
  seconds: number;
  interrupted: boolean;
}

/** Bump when parsing, chunking or windowing changes what a document becomes (invalidates eval caches). */
export const INGEST_VERSION = 36;
