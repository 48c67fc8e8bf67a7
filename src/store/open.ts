import path from 'node:path';
import type { Store } from './interfaces.js';
import type { ConversationOptions, ConversationStore } from './conversation.js';
import { redactUrl } from './url.js';
import { DB_FILE, openDatabase } from './sqlite/db.js';
import { SqliteStore, type StoreOptions } from './sqlite/store.js';

/** The embedded store's options (its folder is used when there is no databaseUrl), plus where PostgreSQL is. */
export interface OpenStoreOptions extends StoreOptions {
  /** RAGASK_DATABASE_URL: the PostgreSQL backend; null for the embedded SQLite + hnswlib store. */
  databaseUrl: string | null;
  /** PostgreSQL: a schema of the store's own in the database (eval datasets, benchmark corpora, tests). */
  pgSchema?: string;
}

/**
 * Opens the configured backend. The rest of ragask sees a Store and never which one it is; the
 * PostgreSQL client is only loaded when a database URL is set.
 */
export async function openStore(opts: OpenStoreOptions): Promise<Store> {
  const common = {
    model: opts.model,
    dimension: opts.dimension,
    hnsw: opts.hnsw,
    ...(opts.log ? { log: opts.log } : {}),
    ...(opts.allowModelMismatch ? { allowModelMismatch: true } : {}),
  };
  if (opts.databaseUrl) {
    const { PgStore } = await import('./pg/store.js');
    return PgStore.open({ url: opts.databaseUrl, ...common, ...(opts.pgSchema ? { schema: opts.pgSchema } : {}) });
  }
  return SqliteStore.openAsync({ dataDir: opts.dataDir, ...common, persistIndex: opts.persistIndex ?? true });
}

/** Removes a PostgreSQL store made in a schema of its own (a benchmark's), with everything in it. */
export async function dropPgSchema(url: string, schema: string): Promise<void> {
  const { dropSchema } = await import('./pg/db.js');
  await dropSchema(url, schema);
}

/** Where the store is, for messages: the database (without its password) or the SQLite file. */
export function storeLocation(opts: Pick<OpenStoreOptions, 'dataDir' | 'databaseUrl'>): string {
  return opts.databaseUrl ? redactUrl(opts.databaseUrl) : path.join(opts.dataDir, DB_FILE);
}

/** Connections of the conversation store's own pool: its queries are short and one per delivery, click or turn. */
const CONVERSATION_POOL_SIZE = 2;

/**
 * A chat front end's state, opened from the store's database settings: the same SQLite file as the
 * embedded store, or the same PostgreSQL database (and schema), over a connection of its own that
 * it closes, so the document store needs to know nothing of it.
 */
export async function openConversations<R>(
  settings: Pick<OpenStoreOptions, 'dataDir' | 'databaseUrl' | 'pgSchema'>,
  opts: Omit<ConversationOptions<R>, 'ownsConnection'>,
): Promise<ConversationStore<R>> {
  if (settings.databaseUrl) {
    const [{ openPool }, { PgConversations }] = await Promise.all([
      import('./pg/db.js'),
      import('./pg/conversations.js'),
    ]);
    const pool = await openPool(settings.databaseUrl, {
      max: CONVERSATION_POOL_SIZE,
      ...(settings.pgSchema ? { schema: settings.pgSchema } : {}),
    });
    return new PgConversations(pool, { ...opts, ownsConnection: true });
  }
  const { SqliteConversations } = await import('./sqlite/conversations.js');
  return new SqliteConversations(openDatabase(path.join(settings.dataDir, DB_FILE)), { ...opts, ownsConnection: true });
}
