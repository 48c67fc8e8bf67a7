import os from 'node:os';

/**
 * This process as the owner of the events it claims: host, pid and a random part (a restarted
 * process may get the same pid).
 */
export const OWNER = `${os.hostname()}:${process.pid}:${Math.random().toString(36).slice(2, 10)}`;

/**
 * Whether an owner is a process of this machine that is gone: its events can be taken over at
 * once, without waiting for the lease. Owners of other machines (and owners of the older form
 * "pid:nonce" of another host) are never judged by pid: only their lease counts.
 */
function ownerDeadHere(owner: string, self: string): boolean {
  if (owner === self) return false;
  const parts = owner.split(':');
  const [host, pidText] = parts.length >= 3 ? [parts[0], parts[1]] : [os.hostname(), parts[0]];
  if (host !== os.hostname()) return false;
  const pid = Number(pidText);
  // our own pid under another owner id: a previous process with the same pid (a restarted
  // container is pid 1 again), so dead
  if (!Number.isInteger(pid) || pid <= 0 || pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return false;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code !== 'EPERM';
  }
}

/** What decides whether an event's claim may be taken (see SqliteSlackState.claimable). */
export interface ClaimRow {
  owner: string | null;
  lease_until: number | null;
  updated_at: number;
}

/**
 * Whether `self` may take an event's claim: nobody holds it, `self` does, its lease has lapsed, its
 * owner is a process of this machine that is gone, or (a claim from before leases) it has not moved
 * for `staleMs`. The same rule in every backend.
 */
export function claimable(row: ClaimRow, self: string, t: number, staleMs: number): boolean {
  if (!row.owner || row.owner === self) return true;
  if (row.lease_until !== null) return row.lease_until <= t || ownerDeadHere(row.owner, self);
  return ownerDeadHere(row.owner, self) || t - row.updated_at >= staleMs;
}

/** The key of a thread's state: channel:thread_ts. */
export function threadKey(channel: string, threadTs: string): string {
  return `${channel}:${threadTs}`;
}

/** A thread keeps its last few turns: enough context for follow-ups, bounded in size. */
export const MAX_TURNS = 5;
