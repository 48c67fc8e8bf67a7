/**
 * Links into a repository's hosted view: a file of a local clone is cited at the commit that last
 * changed it (what was ingested, as committed), e.g. `--web-url https://github.com/org/repo/blob/{commit}/{path}` (GitLab's
 * `/-/blob/{commit}/{path}` and others take the same two placeholders).
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

/** The work tree a file belongs to (the folder holding .git), or null. */
export function workTreeOf(file: string): string | null {
  for (let dir = path.dirname(file); ; dir = path.dirname(dir)) {
    if (fs.existsSync(path.join(dir, '.git'))) return dir;
    if (path.dirname(dir) === dir) return null;
  }
}

/**
 * Each committed file's last commit, for files unchanged in the work tree: that commit's view shows
 * exactly what was ingested, and a file whose content did not change keeps its link (and so is not
 * read again) when others are committed.
 */
function lastCommits(root: string): Map<string, string> {
  const git = (...args: string[]) =>
    execFileSync('git', ['-C', root, ...args], { encoding: 'utf8', maxBuffer: 1 << 28 });
  const dirty = new Set(
    git('status', '--porcelain', '--no-renames', '-z')
      .split('\0')
      .filter(Boolean)
      .map((l) => l.slice(3)),
  );
  const out = new Map<string, string>();
  let commit = '';
  for (const line of git('log', '--format=%x00%H', '--name-only', '--no-renames').split('\n')) {
    if (line.startsWith('\0')) commit = line.slice(1);
    else if (line && !out.has(line) && !dirty.has(line)) out.set(line, commit);
  }
  return out;
}

/** `file`'s link in the hosted view at the commit that last changed it, or null outside a git clone (or uncommitted). */
export function repositoryLink(template: string): (file: string) => string | null {
  const trees = new Map<string, Map<string, string>>();
  const commitsOf = (root: string) => {
    if (!trees.has(root)) {
      try {
        trees.set(root, lastCommits(root));
      } catch {
        trees.set(root, new Map());
      }
    }
    return trees.get(root)!;
  };
  return (file) => {
    const root = workTreeOf(file);
    if (!root) return null;
    const rel = path.relative(root, file).split(path.sep).join('/');
    const commit = commitsOf(root).get(rel);
    if (!commit) return null;
    return template
      .replaceAll('{commit}', commit)
      .replaceAll('{path}', rel.split('/').map(encodeURIComponent).join('/'));
  };
}
