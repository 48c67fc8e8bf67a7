import pg from 'pg';
import { UserError } from '../../errors.js';
import { redactUrl } from '../url.js';

/**
 * The PostgreSQL connection pool and versioned migrations of the PostgreSQL backend. Migrations are
 * applied in order, each in its own transaction under an advisory lock, so replicas starting at once
 * apply each one once; `ragask_schema` holds the version each component (store, slack) reached.
 */

// int8 (bigint: ids, millisecond timestamps) as a JavaScript number: every value ragask keeps is
// far below 2^53. Set on this pool's own type table, not pg's global one.
const types = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === 20 && format !== 'binary') return (v: string) => Number(v);
    return pg.types.getTypeParser(oid, format as 'text');
  },
};

export type PgPool = pg.Pool;

/**
 * Connections per process. An engine answers one question at a time and overlaps a few queries
 * (the per-term counts of one search), so four keep it busy; a replica with four engine workers
 * holds at most 20, and five replicas stay within PostgreSQL's default max_connections of 100.
 */
const PG_POOL_SIZE = 4;
export type PgClient = pg.PoolClient;

/** A connection URL without its `options` parameter (the server settings each connection starts with). */
function withoutOptions(url: string): string {
  return url
    .replace(/([?&])options=[^&]*(&|$)/, (_, before: string, after: string) => (after ? before : ''))
    .replace(/[?&]$/, '');
}

/** The settings a connection starts with: the URL's own `options`, then the store's schema and its planning. */
function connectionOptions(url: string, schema: string | undefined): string {
  const own = /[?&]options=([^&]*)/.exec(url);
  return [
    // the store's own schema wins over a search_path the URL sets, so its options are not read then
    schema ? `-c search_path=${schema},public` : own ? decodeURIComponent(own[1]!.replace(/\+/g, ' ')) : '',
    // Named statements are planned for their values each time: after five runs PostgreSQL may keep a
    // generic plan, blind to how common a full-text query's terms are; the bridge finder's mentions
    // query then took 2 s instead of 0.11 (100k windows; docs/benchmarks-history.md, "A generic plan").
    '-c plan_cache_mode=force_custom_plan',
  ]
    .filter(Boolean)
    .join(' ');
}

/**
 * A pool on the database of RAGASK_DATABASE_URL, checked with one round trip. With `schema`, every
 * connection works in that schema (created if missing; pgvector's type is found in public), so one
 * database can hold several stores apart: eval datasets, benchmark corpora, test runs.
 */
export async function openPool(url: string, opts: { max?: number; schema?: string } = {}): Promise<PgPool> {
  if (opts.schema !== undefined && !/^[a-z_][a-z0-9_]{0,62}$/.test(opts.schema))
    throw new Error(`not a schema name: ${opts.schema}`);
  const pool = new pg.Pool({
    connectionString: withoutOptions(url),
    // per process (each engine worker is one): a replica's stores hold (workers + 1) × this at most, its Slack state 2 more
    max: opts.max ?? PG_POOL_SIZE,
    types,
    idleTimeoutMillis: 30_000,
    options: connectionOptions(url, opts.schema),
  });
  // an idle client that loses its connection must not crash the process: the next query reconnects
  pool.on('error', () => undefined);
  try {
    if (opts.schema) await pool.query(`CREATE SCHEMA IF NOT EXISTS ${opts.schema}`);
    else await pool.query('SELECT 1');
  } catch (e) {
    await pool.end().catch(() => undefined);
    throw new UserError(
      `RAGASK_DATABASE_URL (${redactUrl(url)}): cannot connect to PostgreSQL (${(e as Error).message}); check the URL and that the server is running, or unset RAGASK_DATABASE_URL to use the embedded store`,
      'database_unreachable',
    );
  }
  return pool;
}

/** Drops a schema of ragask's own (a benchmark's or an evaluation's store) and everything in it. */
export async function dropSchema(url: string, schema: string): Promise<void> {
  const pool = await openPool(url);
  try {
    if (!/^[a-z_][a-z0-9_]{0,62}$/.test(schema)) throw new Error(`not a schema name: ${schema}`);
    await pool.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  } finally {
    await pool.end();
  }
}

/** Runs `work` in one transaction on one client of the pool. */
export async function inTransaction<T>(pool: PgPool, work: (client: PgClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const out = await work(client);
    await client.query('COMMIT');
    return out;
  } catch (e) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw e;
  } finally {
    client.release();
  }
}

export interface PgMigration {
  version: number;
  name: string;
  sql: string;
}

/**
 * Applies the migrations of one component not yet applied, in order. A database whose component is
 * newer than this ragask is refused: an older replica must not write a schema it does not know.
 */
export async function migrate(pool: PgPool, component: string, migrations: readonly PgMigration[]): Promise<number> {
  const latest = migrations[migrations.length - 1]!.version;
  await pool
    .query('CREATE TABLE IF NOT EXISTS ragask_schema (component TEXT PRIMARY KEY, version INTEGER NOT NULL)')
    .catch(async (e: unknown) => {
      // two processes creating it at once: one wins, the other sees it exist
      const exists = await pool.query("SELECT 1 FROM pg_tables WHERE tablename = 'ragask_schema'");
      if (exists.rowCount === 0) throw e;
    });
  for (;;) {
    const applied = await inTransaction(pool, async (c) => {
      await c.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`ragask-migrate-${component}`]);
      const row = await c.query<{ version: number }>('SELECT version FROM ragask_schema WHERE component = $1', [
        component,
      ]);
      const current = row.rows[0]?.version ?? 0;
      if (current > latest) {
        throw new UserError(
          `the PostgreSQL database has ${component} schema version ${current}, newer than this ragask (${latest}); upgrade ragask or point RAGASK_DATABASE_URL at another database`,
          'store_version',
        );
      }
      const next = migrations.find((m) => m.version === current + 1);
      if (!next) return null;
      await c.query(next.sql);
      await c.query(
        'INSERT INTO ragask_schema (component, version) VALUES ($1, $2) ON CONFLICT (component) DO UPDATE SET version = excluded.version',
        [component, next.version],
      );
      return next.version;
    });
    if (applied === null) break;
  }
  const done = await pool.query<{ version: number }>('SELECT version FROM ragask_schema WHERE component = $1', [
    component,
  ]);
  return done.rows[0]?.version ?? 0;
}
