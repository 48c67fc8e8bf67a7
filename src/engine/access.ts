import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { allows, contextKey, type AccessContext, type ScopeGroup } from '../store/access.js';
import type { Store } from '../store/interfaces.js';
import { filterIds, type DocFilter, type DocumentRow } from '../store/types.js';

/** What retrieval may see for one asker: applied before ranking, in every path of the engine. */
export interface ResolvedAccess {
  context: AccessContext;
  /**
   * The key of caches (retrieval results, entity links): what the asker may see at this access
   * version, not who asks, so that every channel that sees the same documents shares them; new
   * whenever scopes or flags change.
   */
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
  /** What each set of allowed groups sees, made once at this version and shared by its contexts. */
  seen: LRUCache<string, Seen>;
}

/** What an asker sees: the key of its caches, its searches' filter and its check. */
type Seen = Pick<ResolvedAccess, 'scopeKey' | 'docFilter' | 'allowDoc'>;

function scopeTableOf(version: number, groups: ScopeGroup[]): ScopeTable {
  let max = 0;
  for (const g of groups) for (const id of g.docIds) if (id > max) max = id;
  const groupOf = new Int32Array(max + 1).fill(-1);
  groups.forEach((g, k) => {
    for (const id of g.docIds) groupOf[id] = k;
  });
  return { version, groups, groupOf, seen: new LRUCache<string, Seen>(boundedByIds()) };
}

/** Resolved contexts kept, weighed by the documents each holds, so that restricted ones at a million windows stay bounded. */
const CACHED_DOC_IDS = 4_000_000;

/** A cache of what askers see, bounded by the document ids their filters list. */
function boundedByIds<T extends { docFilter: DocFilter | null }>(): LRUCache.Options<string, T, unknown> {
  return {
    max: 2000,
    maxSize: CACHED_DOC_IDS,
    sizeCalculation: (r) => 1 + (r.docFilter ? filterIds(r.docFilter).ids.size : 0),
  };
}

/**
 * Resolves an asker's context to the documents it may see, from the scopes stored with the
 * documents and the sources an admin hid (hidden from everyone, the command line included); cached
 * until a document is added, removed, re-scoped or flagged. The scopes are read once per access
 * version, grouped by scope, and each context is resolved from the groups: a context every group
 * allows (a workspace of public documents) holds no set of its own.
 */
export class AccessResolver {
  private readonly cache = new LRUCache<string, ResolvedAccess>(boundedByIds());
  private table: Promise<ScopeTable> | null = null;
  private listed: { version: number; rows: Promise<readonly DocumentRow[]> } | null = null;

  constructor(private readonly store: Store) {}

  /**
   * Every document, read once per access version (which every add, removal, re-scope and flag moves):
   * the Home tab and `/ragask sources` list them on every open, and at a million windows one reading
   * takes about 2 s of the thread that answers Slack.
   */
  documents(): Promise<readonly DocumentRow[]> {
    return this.store.access.accessVersion().then((version) => {
      if (this.listed?.version === version) return this.listed.rows;
      const rows = this.store.documents.listDocuments();
      const listed = { version, rows };
      this.listed = listed;
      // a failed read is not kept
      rows.catch(() => {
        if (this.listed === listed) this.listed = null;
      });
      return rows;
    });
  }

  async resolve(ctx: AccessContext): Promise<ResolvedAccess> {
    // a cached retrieval ranked before a source was demoted must not serve after it
    const version = await this.store.access.accessVersion();
    const contextAt = `${contextKey(ctx)}@${version}`;
    const hit = this.cache.get(contextAt);
    if (hit) return hit;
    const flags = await this.store.access.flaggedDocuments();
    const demoted = flags.demoted.size ? flags.demoted : NONE;
    // the command line sees every document not hidden: with none hidden, no document's scope need be
    // read (237k of them at a million windows). A Slack context reads them, so that its check stays exact.
    const resolved: ResolvedAccess =
      ctx.kind === 'local' && flags.hidden.size === 0
        ? { context: ctx, scopeKey: `all@${version}`, docFilter: null, allowDoc: () => true, demoted }
        : { context: ctx, demoted, ...seenBy(await this.scopeTable(version), ctx, flags.hidden) };
    this.cache.set(contextAt, resolved);
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
 * What one context may see, from the scope table, shared with every context the same groups allow
 * (its cache key, its filter): no filter when every group allows it and nothing is hidden; otherwise
 * the shorter list, the allowed documents or the others. The check stays exact for the documents
 * the table holds either way: one added since is not allowed until the next access version is read
 * (the searches' results pass this check too, so an "all but" filter lets no such document through).
 */
function seenBy(table: ScopeTable, ctx: AccessContext, hidden: ReadonlySet<number>): Seen {
  const allowedGroups = table.groups.map((g) => allows(g.scope, ctx));
  const mask = allowedGroups.map((a) => (a ? '1' : '0')).join('');
  let seen = table.seen.get(mask);
  if (!seen) {
    seen = seenOf(table, allowedGroups, hidden);
    table.seen.set(mask, seen);
  }
  return seen;
}

/** What one set of allowed groups sees (see seenBy), keyed by their scopes' texts: the same in every process. */
function seenOf(table: ScopeTable, allowedGroups: readonly boolean[], hidden: ReadonlySet<number>): Seen {
  const { groupOf, version } = table;
  const known = (id: number) => id >= 0 && id < groupOf.length && groupOf[id]! >= 0;
  if (hidden.size === 0 && allowedGroups.every(Boolean))
    return { scopeKey: `all@${version}`, docFilter: null, allowDoc: known };
  const scopes = table.groups.filter((_, k) => allowedGroups[k]).map((g) => JSON.stringify(g.scope));
  const sees = createHash('sha256').update(scopes.sort().join('\n')).digest('hex').slice(0, 16);
  // only the shorter list is made: the allowed documents, or those kept out (hidden ones among them)
  const count = (which: (k: number) => boolean) =>
    table.groups.reduce((n, g, k) => n + (which(k) ? g.docIds.length : 0), 0);
  const listAllowed = count((k) => !!allowedGroups[k]) <= count(() => true) / 2;
  const listed = new Set<number>(listAllowed ? [] : hidden);
  table.groups.forEach((g, k) => {
    if (allowedGroups[k] === listAllowed)
      for (const id of g.docIds) if (!listAllowed || !hidden.has(id)) listed.add(id);
  });
  return {
    scopeKey: `sees:${sees}@${version}`,
    docFilter: listAllowed ? { only: listed } : { except: listed },
    allowDoc: (id) => known(id) && allowedGroups[groupOf[id]!]! && !hidden.has(id),
  };
}
