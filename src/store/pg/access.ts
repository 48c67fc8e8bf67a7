import { scopeGroupsOf, scopesById, scopeToJson, type Scope, type ScopeGroup } from '../access.js';
import type { AccessStore } from '../interfaces.js';
import { inTransaction } from './db.js';
import type { SourceAction, SourceActionEntry, SourceFlag } from '../types.js';
import type { PgContext } from './context.js';

export class PgAccess implements AccessStore {
  constructor(private readonly ctx: PgContext) {}

  async setScope(docIds: readonly number[], scope: Scope): Promise<number> {
    return inTransaction(this.ctx.pool, async (c) => {
      const n =
        (
          await c.query('UPDATE documents SET scope = $1 WHERE id = ANY($2::bigint[])', [
            scopeToJson(scope),
            [...docIds],
          ])
        ).rowCount ?? 0;
      await this.ctx.bump(c, true);
      // cached retrieval results were computed under the old scopes
      await c.query('DELETE FROM query_cache');
      return n;
    });
  }

  async accessVersion(): Promise<number> {
    return Number((await this.ctx.meta('access_version')) ?? '0');
  }

  async scopes(): Promise<Map<number, Scope | null>> {
    return scopesById(
      (await this.ctx.pool.query<{ id: number; scope: string }>('SELECT id, scope FROM documents')).rows,
    );
  }

  async scopeGroups(): Promise<ScopeGroup[]> {
    return scopeGroupsOf(
      (
        await this.ctx.pool.query<{ scope: string; ids: string }>(
          "SELECT scope, string_agg(id::text, ',') AS ids FROM documents GROUP BY scope",
        )
      ).rows,
    );
  }

  async flagSource(entry: SourceActionEntry): Promise<void> {
    await inTransaction(this.ctx.pool, async (c) => {
      if (entry.action === 'restore') await c.query('DELETE FROM source_flags WHERE source = $1', [entry.source]);
      else
        await c.query(
          'INSERT INTO source_flags (source, action, by_user, at) VALUES ($1, $2, $3, $4) ON CONFLICT (source) DO UPDATE SET action = excluded.action, by_user = excluded.by_user, at = excluded.at',
          [entry.source, entry.action, entry.by, entry.at],
        );
      await c.query('INSERT INTO source_actions (source, action, by_user, at) VALUES ($1, $2, $3, $4)', [
        entry.source,
        entry.action,
        entry.by,
        entry.at,
      ]);
      await this.ctx.bump(c, true);
      // cached retrieval results were ranked with the old flags
      await c.query('DELETE FROM query_cache');
    });
  }

  async sourceFlags(): Promise<SourceFlag[]> {
    return (
      await this.ctx.pool.query<SourceFlag>(
        'SELECT source, action, by_user AS "by", at FROM source_flags ORDER BY source COLLATE "C"',
      )
    ).rows;
  }

  async flaggedDocuments(): Promise<{ hidden: Set<number>; demoted: Set<number> }> {
    const out = { hidden: new Set<number>(), demoted: new Set<number>() };
    const rows = await this.ctx.pool.query<{ id: number; action: SourceAction }>(
      'SELECT d.id, f.action FROM source_flags f JOIN documents d ON d.source = f.source',
    );
    for (const r of rows.rows) (r.action === 'hide' ? out.hidden : out.demoted).add(r.id);
    return out;
  }

  async sourceActions(limit: number): Promise<SourceActionEntry[]> {
    return (
      await this.ctx.pool.query<SourceActionEntry>(
        'SELECT source, action, by_user AS "by", at FROM source_actions ORDER BY id DESC LIMIT $1',
        [limit],
      )
    ).rows;
  }
}
