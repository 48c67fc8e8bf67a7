// The index file's plumbing: its identity as saved, its hash, and writes that survive a crash.
import { createHash } from 'node:crypto';
import fs from 'node:fs';

/** What stat says of a file: a rename over it, a write or a truncation changes one of these. */
export interface FileIdentity {
  size: number;
  ino: string;
  mtimeNs: string;
}

export function identityOf(file: string): FileIdentity {
  const st = fs.statSync(file, { bigint: true });
  return { size: Number(st.size), ino: String(st.ino), mtimeNs: String(st.mtimeNs) };
}

export function sameIdentity(file: string, saved: FileIdentity | undefined): boolean {
  if (!saved) return false;
  const now = identityOf(file);
  return now.size === saved.size && now.ino === saved.ino && now.mtimeNs === saved.mtimeNs;
}

export function sha256File(file: string): string {
  const h = createHash('sha256');
  const fd = fs.openSync(file, 'r');
  const buf = Buffer.allocUnsafe(1 << 20);
  try {
    for (let n = fs.readSync(fd, buf, 0, buf.length, null); n > 0; n = fs.readSync(fd, buf, 0, buf.length, null))
      h.update(buf.subarray(0, n));
  } finally {
    fs.closeSync(fd);
  }
  return h.digest('hex');
}

export function writeFileAtomic(file: string, data: string): void {
  const tmp = `${file}.tmp-${process.pid}`;
  const fd = fs.openSync(tmp, 'w');
  try {
    fs.writeSync(fd, data);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  fs.renameSync(tmp, file);
}

export function fsyncFile(file: string): void {
  const fd = fs.openSync(file, 'r');
  try {
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}
