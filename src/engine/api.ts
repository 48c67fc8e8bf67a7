import type { Logger } from '../log.js';
import type { AccessContext } from '../store/access.js';
import type { AccessResolver } from './access.js';
import type { Encoder } from '../models/encoder.js';
import type { LinesObserver } from './answer/index.js';
import type { SpansObserver } from './answer/read.js';
import type { Decomposer } from './decompose.js';
import type { QueryCache } from './query-cache.js';
import type { Retriever } from './retrieve.js';
import type { EngineResult } from './types.js';
import type { EngineSettings } from './settings.js';
import type { AnswerReader } from './answer/reading.js';

/**
 * What a transport asks of the engine: a question, a chain resumed with a person's choice, a
 * follow-up. HopEngine answers in this thread; EnginePool (src/workers/worker-pool.ts) in worker threads.
 */
export interface EngineApi {
  run(question: string, access: AccessContext, overrides?: Partial<EngineSettings>): Promise<EngineResult>;
  resume(
    previous: EngineResult,
    choice: number | string,
    access: AccessContext,
    overrides?: Partial<EngineSettings>,
  ): Promise<EngineResult>;
  followUp(
    previous: EngineResult,
    question: string,
    access: AccessContext,
    overrides?: Partial<EngineSettings>,
  ): Promise<EngineResult>;
}

export interface EngineDeps {
  retriever: Retriever;
  /** Resolves who may see what; every run, resume and follow-up goes through it. */
  access: AccessResolver;
  decomposer: Decomposer;
  encoder: Encoder;
  /** Reads the short answer off the final evidence (models/reader.ts). */
  reader: AnswerReader;
  queryCache?: QueryCache | null;
  log?: Logger;
  /** Clock, replaceable in tests. */
  now?: () => number;
  /** Sees every reading's candidate lines (ragask calibrate --lines). */
  observeLines?: LinesObserver;
  /** Sees every reading's competing spans (ragask calibrate --spans). */
  observeSpans?: SpansObserver;
}
