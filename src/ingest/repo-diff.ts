/**
 * A repository re-ingested reads only what git says changed since the commit it last ingested
 * (`git diff` from that commit, and whatever the work tree holds uncommitted): a docs tree of
 * thousands of files costs the files a commit touched, not a read and hash of every one. The commit
 * is kept with the settings that shape the stored documents; other settings read everything again.
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import type { Store } from '../store/interfaces.js';
import { workTreeOf } from './repo.js';
import type { SourceFile } from './sources.js';

const git = (root: string, ...args: string[]) =>
  execFileSync('git', ['-C', root, ...args], {
    encoding: 'utf8',
    maxBuffer: 1 << 28,
    stdio: ['ignore', 'pipe', 'ignore'],
  });

/** Paths (relative, /-separated) changed since `commit`: committed since, staged, unstaged, untracked; null when git cannot say. */
function changedSince(root: string, commit: string): Set<string> | null {
  try {
    const committed = git(root, 'diff', '--name-only', '--no-renames', '-z', commit, 'HEAD').split('\0');
    const dirty = git(root, 'status', '--porcelain', '--no-renames', '-z', '--untracked-files=all')
      .split('\0')
      .map((l) => l.slice(3));
    return new Set([...committed, ...dirty].filter(Boolean));
  } catch {
    // the commit is gone (a rebase, a fresh clone) or git is missing: read everything
    return null;
  }
}

export interface RepositoryPass {
  /** The files to read. */
  files: SourceFile[];
  /** Sources left unread: stored already, and unchanged since the commit last ingested. */
  unread: string[];
  /** Remembers each work tree's commit, once the pass has stored what it read. */
  record: () => Promise<void>;
}

const cursorName = (root: string) => `repo:${root}`;

/** The files of git work trees that changed since their last ingest, and every other file. */
export async function readOnlyChanged(
  files: readonly SourceFile[],
  store: Store,
  fingerprint: string,
): Promise<RepositoryPass> {
  const heads = new Map<string, { head: string; changed: Set<string> | null }>();
  const out: RepositoryPass = { files: [], unread: [], record: async () => {} };
  for (const f of files) {
    const root = f.origin || f.source ? null : workTreeOf(f.path);
    if (!root) {
      out.files.push(f);
      continue;
    }
    if (!heads.has(root)) heads.set(root, await treeState(root, store, fingerprint));
    const changed = heads.get(root)!.changed;
    const rel = path.relative(root, f.path).split(path.sep).join('/');
    if (changed && !changed.has(rel) && (await store.documents.getDocumentBySource(f.path))) out.unread.push(f.path);
    else out.files.push(f);
  }
  out.record = async () => {
    for (const [root, { head }] of heads)
      if (head) await store.caches.setIngestCursor(cursorName(root), `${head} ${fingerprint}`);
  };
  return out;
}

/** A work tree's HEAD, and what changed since the commit recorded for it (null: read every file). */
async function treeState(
  root: string,
  store: Store,
  fingerprint: string,
): Promise<{ head: string; changed: Set<string> | null }> {
  let head = '';
  try {
    head = git(root, 'rev-parse', 'HEAD').trim();
  } catch {
    return { head, changed: null };
  }
  const [commit, recordedWith] = (await store.caches.ingestCursor(cursorName(root)))?.split(' ') ?? [];
  return { head, changed: commit && recordedWith === fingerprint ? changedSince(root, commit) : null };
}
