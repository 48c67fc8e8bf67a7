import { UserError } from '../errors.js';

/**
 * Who may see a source:
 *  - public: every channel of the workspace (and every DM);
 *  - channels: only questions asked in one of these channels (ids like C0123ABCD);
 *  - user: only that user, in their direct messages with ragask.
 */
export type Scope = { kind: 'public' } | { kind: 'channels'; channels: string[] } | { kind: 'user'; user: string };

/**
 * Where a question is asked. `local` is the operator at the command line (sees everything); a
 * Slack context sees what its channel (or, in a DM, its user) may.
 */
export type AccessContext = { kind: 'local' } | { kind: 'slack'; channel: string; user: string; isDM: boolean };

export const LOCAL: AccessContext = { kind: 'local' };
export const PUBLIC_SCOPE: Scope = { kind: 'public' };

const SLACK_ID = /^[A-Z0-9]{2,}$/;

/** "public", "channel:C1,C2" (or "channels:…"), "user:U1": what `--scope` and RAGASK_DEFAULT_SCOPE take. */
export function parseScope(text: string, setting = '--scope'): Scope {
  const t = text.trim();
  if (/^public$/i.test(t)) return PUBLIC_SCOPE;
  const m = /^(channels?|user):(.+)$/i.exec(t);
  if (m) {
    const ids = m[2]!
      .split(',')
      .map((x) => x.trim())
      .filter(Boolean);
    if (ids.length > 0 && ids.every((id) => SLACK_ID.test(id))) {
      if (m[1]!.toLowerCase() === 'user') {
        if (ids.length === 1) return { kind: 'user', user: ids[0]! };
      } else return { kind: 'channels', channels: [...new Set(ids)].sort() };
    }
  }
  throw new UserError(
    `${setting}: must be public, channel:<id>[,<id>…] (Slack channel ids such as C0123ABCD) or user:<id> (got ${JSON.stringify(text)})`,
  );
}

export function formatScope(s: Scope): string {
  return s.kind === 'public' ? 'public' : s.kind === 'channels' ? `channel:${s.channels.join(',')}` : `user:${s.user}`;
}

/** The stored form (documents.scope). */
export function scopeToJson(s: Scope): string {
  return JSON.stringify(s);
}

/** A stored scope that cannot be read is treated as private to nobody: never shown. */
export function scopeFromJson(json: string): Scope | null {
  try {
    const s = JSON.parse(json) as Scope;
    if (s.kind === 'public') return PUBLIC_SCOPE;
    if (s.kind === 'channels' && Array.isArray(s.channels)) return s;
    if (s.kind === 'user' && typeof s.user === 'string') return s;
  } catch {
    // fall through
  }
  return null;
}

/**
 * Each document's scope from its stored JSON, each distinct text parsed once: a store's documents
 * share a handful of scopes, and a first question at a million windows read 237k of them.
 */
export function scopesById(rows: Iterable<{ id: number; scope: string }>): Map<number, Scope | null> {
  const parsed = new Map<string, Scope | null>();
  const out = new Map<number, Scope | null>();
  for (const r of rows) {
    if (!parsed.has(r.scope)) parsed.set(r.scope, scopeFromJson(r.scope));
    out.set(r.id, parsed.get(r.scope)!);
  }
  return out;
}

/** The documents that share one stored scope (null: unreadable, shown to nobody). */
export interface ScopeGroup {
  scope: Scope | null;
  docIds: number[];
}

/**
 * Scope groups from rows of a stored scope and its documents' ids joined by commas (SQL's
 * group_concat / string_agg): a store's documents share a handful of scopes, and one such row per
 * scope reads 237k documents in about a fifth of the time of a row per document.
 */
export function scopeGroupsOf(rows: Iterable<{ scope: string; ids: string }>): ScopeGroup[] {
  return [...rows].map((r) => ({ scope: scopeFromJson(r.scope), docIds: r.ids.split(',').map(Number) }));
}

/** Whether a source with `scope` may be shown in `ctx`. */
export function allows(scope: Scope | null, ctx: AccessContext): boolean {
  if (ctx.kind === 'local') return true;
  if (!scope) return false;
  switch (scope.kind) {
    case 'public':
      return true;
    case 'channels':
      return !ctx.isDM && scope.channels.includes(ctx.channel);
    case 'user':
      return ctx.isDM && scope.user === ctx.user;
  }
}

/** A short key of the context, for caches: results for one context never serve another. */
export function contextKey(ctx: AccessContext): string {
  return ctx.kind === 'local' ? 'local' : ctx.isDM ? `dm:${ctx.user}` : `channel:${ctx.channel}`;
}
