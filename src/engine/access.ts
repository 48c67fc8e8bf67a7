import { LRUCache } from 'lru-cache';
import { allows, contextKey, type AccessContext } from '../store/access.js';
import type { Store } from '../store/interfaces.js';

/** What retrieval may see for one asker: applied before ranking, in every path of the engine. */
export interface ResolvedAccess {
  context: AccessContext;
  /** Distinguishes caches of different contexts, and of the same one before and after scopes or flags changed. */
  scopeKey: string;
  /** Allowed documents, or null when every document is. */
  allowedDocs: ReadonlySet<number> | null;
  allowDoc(docId: number): boolean;
  /** Documents an admin demoted: ranked lower for everyone (`ragask sources demote`). */
  demoted: ReadonlySet<number>;
}

const NONE: ReadonlySet<number> = new Set();

/**
 * Resolves an asker's context to the documents it may see, from the scopes stored with the
 * documents and the sources an admin hid (hidden from everyone, the command line included); cached
 * until a document is added, removed, re-scoped or flagged.
 */
export class AccessResolver {
  private readonly cache = new LRUCache<string, ResolvedAccess>({ max: 2000 });

  constructor(private readonly store: Store) {}

  async resolve(ctx: AccessContext): Promise<ResolvedAccess> {
    // a cached retrieval ranked before a source was demoted must not serve after it
    const scopeKey = `${contextKey(ctx)}@${await this.store.access.accessVersion()}`;
    const hit = this.cache.get(scopeKey);
    if (hit) return hit;
    const flags = await this.store.access.flaggedDocuments();
    // the command line sees every document not hidden: with none hidden, no document's scope need be
    // read (237k of them at a million windows). A Slack context reads them, so that its check stays exact.
    let everything = ctx.kind === 'local' && flags.hidden.size === 0;
    const allowed = new Set<number>();
    if (!everything) {
      const scopes = await this.store.access.scopes();
      for (const [id, scope] of scopes) if (allows(scope, ctx) && !flags.hidden.has(id)) allowed.add(id);
      everything = allowed.size === scopes.size;
    }
    const resolved: ResolvedAccess = {
      context: ctx,
      scopeKey,
      // null lets the searches skip filtering; the check itself stays exact for a filtered set (a
      // document deleted or added since this resolution is not in `allowed`)
      allowedDocs: everything ? null : allowed,
      allowDoc: everything && ctx.kind === 'local' ? () => true : (id) => allowed.has(id),
      demoted: flags.demoted.size ? flags.demoted : NONE,
    };
    this.cache.set(scopeKey, resolved);
    return resolved;
  }
}
