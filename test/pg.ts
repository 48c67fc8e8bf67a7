import pg from 'pg';
import { inject } from 'vitest';

/** The tests' PostgreSQL with pgvector (see global-setup.ts), or '' when none could be had. */
export const PG_URL = inject('pgUrl');

let made = 0;

/** A URL that works in `schema` (every connection's search_path), as RAGASK_DATABASE_URL for a spawned process. */
function schemaUrl(schema: string): string {
  return `${PG_URL}${PG_URL.includes('?') ? '&' : '?'}options=${encodeURIComponent(`-c search_path=${schema},public`)}`;
}

/**
 * A fresh schema of the test database, so each test's store starts empty and tests in parallel
 * never meet; `drop` removes it and everything in it.
 */
export async function freshSchema(prefix: string): Promise<{ schema: string; url: string; drop: () => Promise<void> }> {
  const schema = `t_${prefix}_${process.pid}_${made++}_${Date.now() % 100000}`;
  const client = new pg.Client({ connectionString: PG_URL });
  await client.connect();
  try {
    await client.query(`CREATE SCHEMA ${schema}`);
  } finally {
    await client.end();
  }
  return {
    schema,
    url: schemaUrl(schema),
    drop: async () => {
      const c = new pg.Client({ connectionString: PG_URL });
      await c.connect();
      try {
        await c.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      } finally {
        await c.end();
      }
    },
  };
}

/** The backends a store test runs on: SQLite always, PostgreSQL where one is available. */
export const BACKENDS = ['sqlite', 'postgres'] as const;
export type Backend = (typeof BACKENDS)[number];
/** Whether a backend's tests are skipped here (only PostgreSQL; global-setup.ts says why). */
export const skipBackend = (b: Backend): boolean => b === 'postgres' && !PG_URL;
