import { errorMessage } from '../../errors.js';
import { redactUrl } from '../url.js';
import { openPool } from './db.js';
import { hasIterativeScan } from './vectors.js';
import type { HealthCheck } from '../types.js';

/**
 * A read-only health check of a PostgreSQL store (for `ragask doctor`): the server and pgvector
 * versions, the schema versions reached, the counts and the model the windows were embedded with.
 * Nothing is created or migrated.
 */
async function pgHealth(url: string): Promise<{
  server: string;
  pgvector: string | null;
  schema: Record<string, number>;
  documents: number;
  windows: number;
  model: string | null;
  vectorIndex: boolean;
}> {
  const pool = await openPool(url, { max: 1 });
  try {
    const server = (await pool.query<{ v: string }>('SELECT current_setting($1) AS v', ['server_version'])).rows[0]!.v;
    const available = (
      await pool.query<{ v: string | null }>(
        "SELECT coalesce((SELECT extversion FROM pg_extension WHERE extname = 'vector'), (SELECT default_version FROM pg_available_extensions WHERE name = 'vector')) AS v",
      )
    ).rows[0]!.v;
    const tables = new Set(
      (
        await pool.query<{ t: string }>(
          'SELECT table_name AS t FROM information_schema.tables WHERE table_schema = ANY(current_schemas(false))',
        )
      ).rows.map((r) => r.t),
    );
    const schema: Record<string, number> = {};
    if (tables.has('ragask_schema'))
      for (const r of (
        await pool.query<{ component: string; version: number }>('SELECT component, version FROM ragask_schema')
      ).rows)
        schema[r.component] = r.version;
    const hasStore = tables.has('windows') && tables.has('ragask_meta');
    const count = async (t: string) =>
      hasStore ? Number((await pool.query<{ n: number }>(`SELECT count(*)::bigint AS n FROM ${t}`)).rows[0]!.n) : 0;
    const model = hasStore
      ? ((await pool.query<{ value: string }>("SELECT value FROM ragask_meta WHERE key = 'embedding_model'")).rows[0]
          ?.value ?? null)
      : null;
    const vectorIndex = hasStore
      ? (await pool.query<{ at: string | null }>("SELECT to_regclass('windows_embedding') AS at")).rows[0]!.at !== null
      : true;
    return {
      server,
      pgvector: available,
      schema,
      documents: await count('documents'),
      windows: await count('windows'),
      model,
      vectorIndex,
    };
  } finally {
    await pool.end();
  }
}

/** The PostgreSQL store's checks for `ragask doctor`: reachable, pgvector 0.5 or newer, schema and model as this ragask expects. */
export async function pgStoreHealth(url: string, wantModel: string): Promise<HealthCheck[]> {
  const checks: HealthCheck[] = [];
  const where = redactUrl(url);
  try {
    const h = await pgHealth(url);
    const [major, minor] = (h.pgvector ?? '0.0').split('.').map(Number);
    if (!h.pgvector || major! * 100 + minor! < 5)
      checks.push({
        name: 'store',
        ok: false,
        detail: `${where}: PostgreSQL ${h.server}, pgvector ${h.pgvector ?? 'not installed'}`,
        fix: 'install pgvector 0.5 or newer on the server (CREATE EXTENSION vector)',
      });
    else
      checks.push({
        name: 'store',
        ok: true,
        detail: `${where}: PostgreSQL ${h.server}, pgvector ${h.pgvector}, schema ${JSON.stringify(h.schema)}, ${h.documents} documents, ${h.windows} windows`,
      });
    if (h.pgvector) checks.push({ name: 'filtered search', ok: true, detail: filteredSearch(h.pgvector) });
    if (!h.vectorIndex)
      checks.push({
        name: 'vector index',
        ok: false,
        detail: `${where}: the windows have no HNSW index: a first load is building it, or one stopped before its end; searches are exact and slow until then`,
        fix: 'let the running ingest finish, or start any ragask command on this database (opening the store builds the index)',
      });
    const want = wantModel;
    if (h.model && h.windows > 0 && h.model !== want)
      checks.push({
        name: 'model ↔ store',
        ok: false,
        detail: `store embedded with ${h.model}, settings select ${want}`,
        fix: 'run `npx ragask reindex`, or set RAGASK_MODEL / RAGASK_MODEL_VARIANT back',
      });
  } catch (e) {
    checks.push({
      name: 'store',
      ok: false,
      detail: errorMessage(e),
      fix: 'check RAGASK_DATABASE_URL and that the server runs, or unset it to use the embedded store',
    });
  }
  return checks;
}

/** How a k-NN search restricted to what an asker may see runs on this pgvector. */
export function filteredSearch(pgvector: string): string {
  return hasIterativeScan(pgvector)
    ? `pgvector ${pgvector}: iterative index scans (a filtered k-NN walks the graph on until it has k rows)`
    : `pgvector ${pgvector}: no iterative index scans (they came in 0.8); a filter that leaves fewer than k rows falls back to an exact search over the allowed documents`;
}
