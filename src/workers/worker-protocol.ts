import type { ErrorCode } from '../errors.js';
import type { AccessContext } from '../store/access.js';
import type { EngineResult } from '../engine/types.js';
import type { EngineSettings } from '../engine/settings.js';

// The tasks EnginePool (worker-pool.ts) hands its engine workers (engine-worker.ts) through piscina,
// and what they answer. Everything crosses by structured clone: results and access contexts are
// plain data; errors cross serialized, so the pool can throw the class the engine threw.

type Overrides = Partial<EngineSettings> | undefined;

export type EngineRequest =
  | { method: 'run'; args: [question: string, access: AccessContext, overrides: Overrides] }
  | {
      method: 'resume';
      args: [previous: EngineResult, choice: number | string, access: AccessContext, overrides: Overrides];
    }
  | {
      method: 'followUp';
      args: [previous: EngineResult, question: string, access: AccessContext, overrides: Overrides];
    }
  /** Answers once the worker's models and store are open (the pool's start waits on one per worker). */
  | { method: 'ready'; args: [] };

export interface SerializedError {
  name: string;
  message: string;
  stack: string | null;
  code: ErrorCode | null;
}

export type EngineAnswer = { value: unknown } | { error: SerializedError };

/** What a worker tells the pool when a task starts or ends there: how many it is answering now. */
export interface WorkerLoad {
  threadId: number;
  answering: number;
}

/**
 * The channel on which the tests of the pool's recovery tell a worker to die (a message of its
 * thread id): if it is answering, it exits at once, between two steps of its answer (what a crash
 * does to the pool; terminating a thread inside onnxruntime is not safe).
 */
export const CRASH_CHANNEL = 'ragask-engine-worker-crash';
