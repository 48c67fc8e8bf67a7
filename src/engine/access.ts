import { LRUCache } from 'lru-cache';
import { allows, contextKey, type AccessContext } from '../store/access.js';
import type { Store } from '../store/interfaces.js';

/** What retrieval may see for one asker: applied before ranking, in every path of the engine. */
export interface ResolvedAccess {
  context: AccessContext;
  /** Distinguishes caches of different contexts. */
  scopeKey: string;
  /** Allowed documents, or null when every document is. */
  allowedDocs: ReadonlySet<number> | null;
  allowDoc(docId: number): boolean;
}

const ALL_ACCESS: ResolvedAccess = {
  context: { kind: 'local' },
  scopeKey: 'local',
  allowedDocs: null,
  allowDoc: () => true,
};

/**
 * Resolves an asker's context to the documents it may see, from the scopes stored with the
 * documents; cached until a document is added, removed or re-scoped.
 */
export class AccessResolver {
  private readonly cache = new LRUCache<string, ResolvedAccess>({ max: 2000 });

  constructor(private readonly store: Store) {}

  async resolve(ctx: AccessContext): Promise<ResolvedAccess> {
    if (ctx.kind === 'local') return ALL_ACCESS;
    const scopeKey = contextKey(ctx);
    const key = `${scopeKey}@${await this.store.accessVersion()}`;
    const hit = this.cache.get(key);
    if (hit) return hit;
    const scopes = await this.store.scopes();
    const allowed = new Set<number>();
    for (const [id, scope] of scopes) if (allows(scope, ctx)) allowed.add(id);
    const everything = allowed.size === scopes.size;
    const resolved: ResolvedAccess = {
      context: ctx,
      scopeKey,
      // null lets the searches skip filtering; the check itself stays exact (a document deleted or
      // added since this resolution is not in `allowed`)
      allowedDocs: everything ? null : allowed,
      allowDoc: (id) => allowed.has(id),
    };
    this.cache.set(key, resolved);
    return resolved;
  }
}
