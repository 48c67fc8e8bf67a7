/**
 * Sources kept current. A sources file lists what ragask keeps (a folder, a wiki export or its zip,
 * files); one pass ingests each with pruning and records how it went in the store (through the
 * incremental-source cursors both backends keep), so `ragask sources` and every replica read the
 * same status. A source that cannot be read keeps its last good documents: a missing path is never
 * pruned, and ingest keeps the stored copy of any file it refuses.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { errorMessage, UserError } from '../errors.js';
import { lazyPackage } from '../lazy-package.js';
import { parseScope, type Scope } from '../store/access.js';
import type { Store } from '../store/interfaces.js';
import { isConfluenceExport } from './exports/confluence.js';
import { isNotionExport } from './exports/notion.js';
import { ingest } from './ingest.js';
import type { IngestDeps } from './types.js';

const UNITS_MS: Record<string, number> = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };
const EVERY = /^(\d+)\s*([smhd])$/;

const Entry = z
  .object({
    path: z.string().min(1),
    kind: z.enum(['detect', 'files', 'confluence', 'notion']).default('detect'),
    scope: z.string().optional(),
    base_url: z.url().optional(),
    every: z.string().regex(EVERY, 'a duration such as 30m, 1h or 1d').default('1h'),
  })
  .strict();
const File = z.object({ sources: z.array(Entry).min(1) }).strict();

/** A source the file lists, as a pass reads it. */
export interface SyncSource {
  path: string;
  kind: 'detect' | 'files' | 'confluence' | 'notion';
  scope?: Scope;
  baseUrl?: string;
  everyMs: number;
}

/** How a source's last pass went. */
export interface SyncStatus {
  at: string;
  ms: number;
  added: number;
  changed: number;
  unchanged: number;
  removed: number;
  failed: number;
  /** The first failure, in the words ingest gives it; null when every file was read. */
  error: string | null;
}

/** A pass's counts as a person reads them: "0 added, 1 changed, 998 unchanged, 1 removed, 0 failed". */
export function statusCounts(s: SyncStatus): string {
  return `${s.added} added, ${s.changed} changed, ${s.unchanged} unchanged, ${s.removed} removed, ${s.failed} failed`;
}

const yaml = lazyPackage<typeof import('yaml')>('yaml');

/** The sources of a sources file; anything wrong is one line naming the file, the entry and the fix. */
export function readSourcesFile(file: string): SyncSource[] {
  let raw: unknown;
  try {
    raw = yaml().parse(fs.readFileSync(file, 'utf8'));
  } catch (e) {
    throw new UserError(
      `${file}: cannot read it as YAML (${errorMessage(e).split('\n')[0]}); see README, "Keeping sources current"`,
    );
  }
  const parsed = File.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new UserError(
      `${file}: ${issue.path.join('.') || 'the file'}: ${issue.message}; see README, "Keeping sources current"`,
    );
  }
  const home = (p: string) => (p.startsWith('~/') ? path.join(os.homedir(), p.slice(2)) : p);
  return parsed.data.sources.map((e, i) => {
    const [, n, unit] = EVERY.exec(e.every)!;
    return {
      path: path.resolve(path.dirname(file), home(e.path)),
      kind: e.kind,
      ...(e.scope ? { scope: parseScope(e.scope, `${file}: sources.${i}.scope`) } : {}),
      ...(e.base_url ? { baseUrl: e.base_url } : {}),
      everyMs: Number(n) * UNITS_MS[unit!]!,
    };
  });
}

const cursorOf = (s: SyncSource) => `sync:${s.path}`;

/** Why a source cannot be read as stated, or null: its path is gone, or it is not the export it says. */
function unreadable(s: SyncSource): string | null {
  if (!fs.existsSync(s.path))
    return 'not found; its documents are kept until it is back (or drop it from the sources file)';
  if (s.kind === 'detect' || s.kind === 'files' || !fs.statSync(s.path).isDirectory()) return null;
  const is = s.kind === 'confluence' ? isConfluenceExport(s.path) : isNotionExport(s.path);
  return is
    ? null
    : `not a ${s.kind === 'confluence' ? 'Confluence space' : 'Notion'} export, as the sources file says; its documents are kept`;
}

/** One source read and pruned; what happened, also written to the store. */
async function syncSource(deps: IngestDeps, s: SyncSource, signal?: AbortSignal): Promise<SyncStatus> {
  const t0 = performance.now();
  const status: SyncStatus = {
    at: new Date().toISOString(),
    ms: 0,
    added: 0,
    changed: 0,
    unchanged: 0,
    removed: 0,
    failed: 0,
    error: null,
  };
  const why = unreadable(s);
  if (why) Object.assign(status, { failed: 1, error: `${s.path}: ${why}` });
  else {
    try {
      const r = await ingest(deps, [s.path], {
        prune: true,
        baseUrl: s.baseUrl ?? null,
        ...(s.scope ? { scope: s.scope } : {}),
        ...(signal ? { signal } : {}),
      });
      const first = r.failed[0];
      Object.assign(status, {
        added: r.added,
        changed: r.updated,
        unchanged: r.unchanged,
        removed: r.removed,
        failed: r.failed.length,
        error: first ? `${first.file}${first.line ? `:${first.line}` : ''}: ${first.reason}` : null,
      });
    } catch (e) {
      Object.assign(status, { failed: 1, error: `${s.path}: ${errorMessage(e)}` });
    }
  }
  status.ms = Math.round(performance.now() - t0);
  await deps.store.caches.setIngestCursor(cursorOf(s), JSON.stringify(status));
  return status;
}

/** One pass over the sources, in order: each read, pruned and recorded. */
export async function syncPass(deps: IngestDeps, sources: readonly SyncSource[], signal?: AbortSignal) {
  const out: { source: SyncSource; status: SyncStatus }[] = [];
  for (const source of sources) {
    if (signal?.aborted) break;
    out.push({ source, status: await syncSource(deps, source, signal) });
  }
  return out;
}

/** Each source's last pass as recorded in the store (null: never synced). */
export async function syncStatuses(store: Store, sources: readonly SyncSource[]) {
  return Promise.all(
    sources.map(async (source) => {
      const raw = await store.caches.ingestCursor(cursorOf(source));
      return { source, status: raw ? (JSON.parse(raw) as SyncStatus) : null };
    }),
  );
}

/** The sources whose time has come: never synced, or last synced at least their `every` ago. */
export async function dueSources(
  store: Store,
  sources: readonly SyncSource[],
  now = Date.now(),
): Promise<SyncSource[]> {
  return (await syncStatuses(store, sources))
    .filter(({ source, status }) => !status || Date.parse(status.at) + source.everyMs <= now)
    .map(({ source }) => source);
}
