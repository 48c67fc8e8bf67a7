import { ingestDocuments } from '../../ingest/ingest.js';
import type { Logger } from '../../log.js';
import type { Store } from '../../store/interfaces.js';
import type { SlackApi } from '../api.js';
import { channelPlace, readThread, userNames, threadDocument, threadSource, type ThreadPlace } from './channels.js';
import type { IngestDeps } from '../../ingest/types.js';

/**
 * While `serve` runs, the threads of the channels in RAGASK_SLACK_SOURCES follow what people write:
 * a new message, a reply, an edit (`message_changed`) or a deletion (`message_deleted`) re-reads its
 * thread and replaces the thread's document; a thread left with nothing a person wrote is removed,
 * from answers, snippets and the index. A burst of events on one thread is read once.
 */

/** Events on one thread within this long are read as one. */
const SETTLE_MS = 1500;

/** The parts of a message event this reads (message, message_changed, message_deleted). */
export interface SourceEvent {
  channel: string;
  subtype?: string;
  ts?: string;
  thread_ts?: string;
  message?: { ts: string; thread_ts?: string };
  previous_message?: { ts: string; thread_ts?: string };
  deleted_ts?: string;
}

export interface SourceSyncDeps {
  api: SlackApi;
  ingest: IngestDeps;
  log: Logger;
  channels: readonly string[];
}

export class SourceSync {
  private readonly channels: Set<string>;
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private readonly running = new Set<Promise<void>>();
  private readonly places = new Map<string, Promise<ThreadPlace>>();

  private readonly names: (user: string) => Promise<string>;

  constructor(private readonly deps: SourceSyncDeps) {
    this.channels = new Set(deps.channels);
    this.names = userNames(deps.api);
  }

  watches(channel: string): boolean {
    return this.channels.has(channel);
  }

  /** A message event in a watched channel: its thread is read again once events settle. */
  onEvent(e: SourceEvent): void {
    if (!this.watches(e.channel)) return;
    const inner = e.message ?? e.previous_message;
    const root = inner?.thread_ts ?? inner?.ts ?? e.thread_ts ?? e.deleted_ts ?? e.ts;
    if (!root) return;
    const key = `${e.channel}/${root}`;
    clearTimeout(this.timers.get(key));
    this.timers.set(
      key,
      setTimeout(() => {
        this.timers.delete(key);
        const work = this.sync(e.channel, root).catch((err: unknown) =>
          this.deps.log.warn({ err, channel: e.channel, thread: root }, 'slack: a source thread could not be updated'),
        );
        this.running.add(work);
        void work.finally(() => this.running.delete(work));
      }, SETTLE_MS),
    );
  }

  /** Whether nothing is waiting or being read (tests wait on it). */
  get idle(): boolean {
    return this.timers.size === 0 && this.running.size === 0;
  }

  async stop(): Promise<void> {
    for (const t of this.timers.values()) clearTimeout(t);
    this.timers.clear();
    await Promise.all(this.running);
  }

  private async sync(channel: string, root: string): Promise<void> {
    const store: Store = this.deps.ingest.store;
    const where = await this.place(channel);
    const thread = await readThread(this.deps.api, channel, root).catch((e: unknown) => {
      if ((e as { data?: { error?: string } }).data?.error === 'thread_not_found') return [];
      throw e;
    });
    const doc = thread.length ? await threadDocument(thread, where, this.names) : null;
    if (!doc) {
      const stored = await store.documents.getDocumentBySource(threadSource(channel, root));
      if (stored) {
        await store.documents.deleteDocument(stored.id);
        await store.index.flush();
        this.deps.log.info({ channel, thread: root }, 'slack: a deleted source thread was removed');
      }
      return;
    }
    await ingestDocuments(
      {
        ...this.deps.ingest,
        config: { ...this.deps.ingest.config, defaultScope: { kind: 'channels', channels: [channel] } },
      },
      [doc],
    );
  }

  private place(channel: string): Promise<ThreadPlace> {
    if (!this.places.has(channel)) this.places.set(channel, channelPlace(this.deps.api, channel));
    const p = this.places.get(channel)!;
    // a failed lookup is tried again next time
    p.catch(() => this.places.delete(channel));
    return p;
  }
}
