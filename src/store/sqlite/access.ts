import { scopeGroupsOf, scopesById, scopeToJson, type Scope, type ScopeGroup } from '../access.js';
import type { SourceAction, SourceActionEntry, SourceFlag } from '../types.js';
import type { AccessStore } from '../interfaces.js';
import type { SqliteContext } from './context.js';

export class SqliteAccess implements AccessStore {
  constructor(private readonly ctx: SqliteContext) {}

  /** Changes who may see documents; returns how many changed. */
  async setScope(docIds: readonly number[], scope: Scope): Promise<number> {
    return this.ctx.db.transaction(() => {
      const n = this.ctx
        .sql('UPDATE documents SET scope = ? WHERE id IN (SELECT value FROM json_each(?))')
        .run(scopeToJson(scope), JSON.stringify(docIds)).changes;
      this.ctx.bumpAccessVersion();
      // cached retrieval results were computed under the old scopes
      this.ctx.sql('DELETE FROM query_cache').run();
      return n;
    })();
  }

  /** Changes whenever a document is added, removed or re-scoped: the key of access caches. */
  async accessVersion(): Promise<number> {
    return Number(
      (this.ctx.sql('SELECT value FROM meta WHERE key = ?').get('access_version') as { value: string } | undefined)
        ?.value ?? '0',
    );
  }

  /** Every document's scope (null: unreadable). */
  async scopes(): Promise<Map<number, Scope | null>> {
    return scopesById(
      this.ctx.sql('SELECT id, scope FROM documents').iterate() as Iterable<{ id: number; scope: string }>,
    );
  }

  async scopeGroups(): Promise<ScopeGroup[]> {
    return scopeGroupsOf(
      this.ctx.sql('SELECT scope, group_concat(id) AS ids FROM documents GROUP BY scope').all() as {
        scope: string;
        ids: string;
      }[],
    );
  }

  async flagSource(entry: SourceActionEntry): Promise<void> {
    this.ctx.db.transaction(() => {
      if (entry.action === 'restore') this.ctx.sql('DELETE FROM source_flags WHERE source = ?').run(entry.source);
      else
        this.ctx
          .sql(
            'INSERT INTO source_flags (source, action, by_user, at) VALUES (?, ?, ?, ?) ON CONFLICT(source) DO UPDATE SET action = excluded.action, by_user = excluded.by_user, at = excluded.at',
          )
          .run(entry.source, entry.action, entry.by, entry.at);
      this.ctx
        .sql('INSERT INTO source_actions (source, action, by_user, at) VALUES (?, ?, ?, ?)')
        .run(entry.source, entry.action, entry.by, entry.at);
      this.ctx.bumpAccessVersion();
      // cached retrieval results were ranked with the old flags
      this.ctx.sql('DELETE FROM query_cache').run();
    })();
  }

  async sourceFlags(): Promise<SourceFlag[]> {
    return this.ctx
      .sql('SELECT source, action, by_user AS "by", at FROM source_flags ORDER BY source')
      .all() as SourceFlag[];
  }

  async flaggedDocuments(): Promise<{ hidden: Set<number>; demoted: Set<number> }> {
    const out = { hidden: new Set<number>(), demoted: new Set<number>() };
    const rows = this.ctx
      .sql('SELECT d.id, f.action FROM source_flags f JOIN documents d ON d.source = f.source')
      .all() as {
      id: number;
      action: SourceAction;
    }[];
    for (const r of rows) (r.action === 'hide' ? out.hidden : out.demoted).add(r.id);
    return out;
  }

  async sourceActions(limit: number): Promise<SourceActionEntry[]> {
    return this.ctx
      .sql('SELECT source, action, by_user AS "by", at FROM source_actions ORDER BY id DESC LIMIT ?')
      .all(limit) as SourceActionEntry[];
  }
}
