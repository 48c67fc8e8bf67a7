import type { ErrorCode } from '../errors.js';
import type { AccessContext } from '../store/access.js';
import type { EngineResult } from '../engine/types.js';
import type { EngineSettings } from '../engine/settings.js';

// The messages between EnginePool (worker-pool.ts) and its engine workers (engine-worker.ts).
// Everything crosses by structured clone: results and access contexts are plain data.

type Overrides = Partial<EngineSettings> | undefined;

export type EngineRequest = { id: number } & (
  | { method: 'run'; args: [question: string, access: AccessContext, overrides: Overrides] }
  | {
      method: 'resume';
      args: [previous: EngineResult, choice: number | string, access: AccessContext, overrides: Overrides];
    }
  | {
      method: 'followUp';
      args: [previous: EngineResult, question: string, access: AccessContext, overrides: Overrides];
    }
);

export interface SerializedError {
  name: string;
  message: string;
  stack: string | null;
  code: ErrorCode | null;
}

export type EngineWorkerMessage =
  | { type: 'ready' }
  | { type: 'failed'; error: SerializedError }
  | { type: 'result'; id: number; value: unknown }
  | { type: 'result'; id: number; error: SerializedError };
