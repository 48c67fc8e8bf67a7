/**
 * How long work reports its progress, to whoever shows it (the CLI's bar, or nothing): shared by
 * ingest, re-embedding, store copies and eval, so none of them depends on another for it.
 */
export interface ProgressReporter {
  start(total: number, label: string): void;
  update(done: number, label?: string): void;
  stop(): void;
}
