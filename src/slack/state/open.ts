import path from 'node:path';
import type { OpenStoreOptions } from '../../store/open.js';
import { DB_FILE, openDatabase } from '../../store/sqlite/db.js';
import type { SlackStateStore } from './interfaces.js';
import { SqliteSlackState } from './sqlite.js';

/** Connections of the Slack state's own pool: its queries are short and one per delivery, click or turn. */
const SLACK_POOL_SIZE = 2;

/**
 * The Slack app's state, opened from the store's database settings: the same SQLite file as the
 * embedded store, or the same PostgreSQL database (and schema), over a connection of its own, so
 * the core store needs to know nothing of it. `ttlMs`: how long button states and threads last.
 */
export async function openSlackState(
  settings: Pick<OpenStoreOptions, 'dataDir' | 'databaseUrl' | 'pgSchema'>,
  ttlMs: number,
): Promise<SlackStateStore> {
  if (settings.databaseUrl) {
    const [{ openPool }, { PgSlackState }] = await Promise.all([import('../../store/pg/db.js'), import('./pg.js')]);
    const pool = await openPool(settings.databaseUrl, {
      max: SLACK_POOL_SIZE,
      ...(settings.pgSchema ? { schema: settings.pgSchema } : {}),
    });
    return new PgSlackState(pool, ttlMs, undefined, undefined, undefined, true);
  }
  return new SqliteSlackState(
    openDatabase(path.join(settings.dataDir, DB_FILE)),
    ttlMs,
    undefined,
    undefined,
    undefined,
    true,
  );
}
