import { LRUCache } from 'lru-cache';
import { allows, contextKey, type AccessContext, type ScopeGroup } from '../store/access.js';
import type { Store } from '../store/interfaces.js';
import { filterIds, type DocFilter } from '../store/types.js';

/** What retrieval may see for one asker: applied before ranking, in every path of the engine. */
export interface ResolvedAccess {
  context: AccessContext;
  /** Distinguishes caches of different contexts, and of the same one before and after scopes or flags changed. */
  scopeKey: string;
  /** What every search filters by (the allowed documents, or the others where they are fewer), or null when every document is allowed. */
  docFilter: DocFilter | null;
  allowDoc(docId: number): boolean;
  /** Documents an admin demoted: ranked lower for everyone (`ragask sources demote`). */
  demoted: ReadonlySet<number>;
}

const NONE: ReadonlySet<number> = new Set();

/** Every document's scope group at one access version, shared by every context resolved at it. */
interface ScopeTable {
  version: number;
  groups: ScopeGroup[];
  /** Document id → its group's index (-1: no such document when the table was read). */
  groupOf: Int32Array;
}

function scopeTableOf(version: number, groups: ScopeGroup[]): ScopeTable {
  let max = 0;
  for (const g of groups) for (const id of g.docIds) if (id > max) max = id;
  const groupOf = new Int32Array(max + 1).fill(-1);
  groups.forEach((g, k) => {
    for (const id of g.docIds) groupOf[id] = k;
  });
  return { version, groups, groupOf };
}

/** Resolved contexts kept, weighed by the documents each holds, so that restricted ones at a million windows stay bounded. */
const CACHED_DOC_IDS = 4_000_000;

/**
 * Resolves an asker's context to the documents it may see, from the scopes stored with the
 * documents and the sources an admin hid (hidden from everyone, the command line included); cached
 * until a document is added, removed, re-scoped or flagged. The scopes are read once per access
 * version, grouped by scope, and each context is resolved from the groups: a context every group
 * allows (a workspace of public documents) holds no set of its own.
 */
export class AccessResolver {
  private readonly cache = new LRUCache<string, ResolvedAccess>({
    max: 2000,
    maxSize: CACHED_DOC_IDS,
    sizeCalculation: (r) => 1 + (r.docFilter ? filterIds(r.docFilter).ids.size : 0),
  });
  private table: Promise<ScopeTable> | null = null;

  constructor(private readonly store: Store) {}

  async resolve(ctx: AccessContext): Promise<ResolvedAccess> {
    // a cached retrieval ranked before a source was demoted must not serve after it
    const version = await this.store.access.accessVersion();
    const scopeKey = `${contextKey(ctx)}@${version}`;
    const hit = this.cache.get(scopeKey);
    if (hit) return hit;
    const flags = await this.store.access.flaggedDocuments();
    const demoted = flags.demoted.size ? flags.demoted : NONE;
    // the command line sees every document not hidden: with none hidden, no document's scope need be
    // read (237k of them at a million windows). A Slack context reads them, so that its check stays exact.
    const resolved: ResolvedAccess =
      ctx.kind === 'local' && flags.hidden.size === 0
        ? { context: ctx, scopeKey, docFilter: null, allowDoc: () => true, demoted }
        : { context: ctx, scopeKey, demoted, ...allowedBy(await this.scopeTable(version), ctx, flags.hidden) };
    this.cache.set(scopeKey, resolved);
    return resolved;
  }

  private scopeTable(version: number): Promise<ScopeTable> {
    const current = this.table;
    if (current) return current.then((t) => (t.version === version ? t : this.readTable(version)));
    return this.readTable(version);
  }

  private readTable(version: number): Promise<ScopeTable> {
    const reading = this.store.access.scopeGroups().then((groups) => scopeTableOf(version, groups));
    this.table = reading;
    // a failed read is not kept: the next question reads again
    reading.catch(() => {
      if (this.table === reading) this.table = null;
    });
    return reading;
  }
}

/**
 * What one context may see, from the scope table: no filter when every group allows it and nothing
 * is hidden; otherwise the shorter list, the allowed documents or the others. The check stays exact
 * for the documents the table holds either way: one added since is not allowed until the next
 * access version is read (the searches' results pass this check too, so an "all but" filter lets
 * no such document through).
 */
function allowedBy(
  table: ScopeTable,
  ctx: AccessContext,
  hidden: ReadonlySet<number>,
): Pick<ResolvedAccess, 'docFilter' | 'allowDoc'> {
  const allowedGroups = table.groups.map((g) => allows(g.scope, ctx));
  const { groupOf } = table;
  const known = (id: number) => id >= 0 && id < groupOf.length && groupOf[id]! >= 0;
  const allowDoc = (id: number) => known(id) && allowedGroups[groupOf[id]!]! && !hidden.has(id);
  if (hidden.size === 0 && allowedGroups.every(Boolean)) return { docFilter: null, allowDoc: known };
  const allowed = new Set<number>();
  const denied = new Set<number>(hidden);
  table.groups.forEach((g, k) => {
    for (const id of g.docIds) (allowedGroups[k] && !hidden.has(id) ? allowed : denied).add(id);
  });
  return { docFilter: denied.size < allowed.size ? { except: denied } : { only: allowed }, allowDoc };
}
