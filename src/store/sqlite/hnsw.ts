import fs from 'node:fs';
import path from 'node:path';
import hnswlib from 'hnswlib-node';
import type { Logger } from '../../log.js';
import type { ProgressReporter } from '../../progress.js';
import { silentLogger } from '../../log.js';
import type { DB } from './db.js';
import type { VectorIndex } from '../interfaces.js';
import { admits, type DocFilter, type HnswParams, type VectorHit } from '../types.js';
import { blobToVector } from './vectors.js';
import { WindowDocuments } from './window-docs.js';
import { type FileIdentity, fsyncFile, identityOf, sameIdentity, sha256File, writeFileAtomic } from './files.js';

/** What opening the index needs: the encoder it serves, its parameters, and where a rebuild reports. */
export interface HnswOpenOptions {
  dimension: number;
  model: string;
  params: HnswParams;
  log?: Logger;
  persist?: boolean;
  progress?: ProgressReporter;
}

/** The HNSW index file, in the data folder beside the database. */
export const INDEX_FILE = 'index.hnsw';

/** Sidecar of the index file: what it holds and which index_log entry it reflects. */
interface IndexMeta {
  format: 1;
  dimension: number;
  model: string;
  m: number;
  efConstruction: number;
  /** Highest index_log.seq applied. */
  seq: number;
  count: number;
  deleted: number;
  /** sha256 of the index file, so a torn pair (new index, old sidecar) is detected and rebuilt. */
  sha256: string;
  /** The file as saved: an open that finds it unchanged skips hashing (seconds at a million windows). */
  saved?: FileIdentity;
}

/**
 * The HNSW index over window vectors (label = window id), persisted beside the SQLite store.
 * SQLite is the source of truth: every window added or removed there is appended to index_log in
 * the same transaction, and the index replays the log from the last entry it saw. A missing,
 * corrupt, foreign or torn index file is rebuilt from the vectors in SQLite.
 */
/** The HNSW backend of the VectorIndex: hnswlib, saved beside the SQLite file and replayed from its index log. */
export class HnswIndex implements VectorIndex {
  private index: hnswlib.HierarchicalNSW;
  private seq = 0;
  private deleted = 0;
  private dirty = false;
  /** False in a process or thread that only reads (an engine worker): it never writes the file. */
  private persist = true;
  /** Why the index was rebuilt on open, if it was (for `ragask stats`/doctor and tests). */
  rebuiltBecause: string | null = null;

  private constructor(
    private readonly db: DB,
    private readonly file: string,
    readonly dimension: number,
    private readonly model: string,
    private params: HnswParams,
    private readonly log: Logger,
  ) {
    this.index = new hnswlib.HierarchicalNSW('ip', dimension);
    this.windowDocs = new WindowDocuments(db);
  }

  /** Temporary files of saves that were killed midway (their process is gone): never used, removed. */
  private removeStaleTemporaries(): void {
    const dir = path.dirname(this.file);
    const base = path.basename(this.file);
    for (const f of fs.existsSync(dir) ? fs.readdirSync(dir) : []) {
      const m = new RegExp(`^${base.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?:\\.meta\\.json)?\\.tmp-(\\d+)$`).exec(f);
      if (!m) continue;
      const pid = Number(m[1]);
      let alive = pid === process.pid;
      if (!alive) {
        try {
          process.kill(pid, 0);
          alive = true;
        } catch (e) {
          alive = (e as NodeJS.ErrnoException).code === 'EPERM';
        }
      }
      if (!alive) fs.rmSync(path.join(dir, f), { force: true });
    }
  }

  get metaFile(): string {
    return `${this.file}.meta.json`;
  }

  /**
   * Checks, without changing anything, whether the index file would load as it is and agrees with
   * SQLite: for `ragask doctor`. `problem` is null when it does.
   */
  static inspect(
    db: DB,
    file: string,
    opts: { dimension: number; model: string; params: HnswParams },
  ): { problem: string | null; size: number; behind: number } {
    const vi = new HnswIndex(db, file, opts.dimension, opts.model, opts.params, silentLogger);
    const problem = vi.tryLoad({ alwaysHash: true });
    if (problem) return { problem, size: 0, behind: 0 };
    const behind = (db.prepare('SELECT count(*) AS n FROM index_log WHERE seq > ?').get(vi.seq) as { n: number }).n;
    return { problem: null, size: vi.count, behind };
  }

  /** Loads the index file if it matches SQLite, else rebuilds it; then replays newer log entries. */
  static open(db: DB, file: string, opts: HnswOpenOptions): HnswIndex {
    const vi = HnswIndex.unopened(db, file, opts);
    const checked = vi.checkFile();
    return vi.settle(typeof checked === 'string' ? checked : vi.readNow(checked), opts);
  }

  /**
   * open(), with the file read on a libuv thread: the caller's thread is free meanwhile, so a
   * start-up loads the models while the index (over a gigabyte at a million windows) is read.
   */
  static async openAsync(db: DB, file: string, opts: HnswOpenOptions): Promise<HnswIndex> {
    const vi = HnswIndex.unopened(db, file, opts);
    const checked = vi.checkFile();
    return vi.settle(typeof checked === 'string' ? checked : await vi.read(checked), opts);
  }

  private static unopened(db: DB, file: string, opts: HnswOpenOptions): HnswIndex {
    const vi = new HnswIndex(db, file, opts.dimension, opts.model, opts.params, opts.log ?? silentLogger);
    vi.persist = opts.persist ?? true;
    if (vi.persist) vi.removeStaleTemporaries();
    return vi;
  }

  /** After the file was read or found unusable (`reason`): rebuilt from SQLite, or caught up with its log. */
  private settle(reason: string | null, opts: HnswOpenOptions): HnswIndex {
    if (reason) {
      this.rebuiltBecause = reason;
      this.log.info({ file: this.file, reason }, 'rebuilding the HNSW index from SQLite');
      const bar = opts.progress;
      let started = false;
      this.rebuildNow((done, total) => {
        if (!started) bar?.start(total, `rebuilding the vector index (${reason})`);
        started = true;
        bar?.update(done);
      });
      bar?.stop();
    } else {
      this.catchUp();
    }
    this.flushNow();
    return this;
  }

  /** null when loaded; otherwise why the file cannot be used (`doctor` always hashes). */
  private tryLoad(opts: { alwaysHash?: boolean } = {}): string | null {
    const checked = this.checkFile(opts);
    return typeof checked === 'string' ? checked : this.readNow(checked);
  }

  private readNow(meta: IndexMeta): string | null {
    try {
      this.index.readIndexSync(this.file);
    } catch (e) {
      return `index file unreadable (${(e as Error).message})`;
    }
    return this.adopt(meta);
  }

  private async read(meta: IndexMeta): Promise<string | null> {
    try {
      await this.index.readIndex(this.file);
    } catch (e) {
      return `index file unreadable (${(e as Error).message})`;
    }
    return this.adopt(meta);
  }

  /**
   * The sidecar, if the file beside it can be loaded as this index; otherwise why not. The file is
   * hashed unless it is the very file the sidecar's save left (same inode, size and mtime).
   */
  private checkFile(opts: { alwaysHash?: boolean } = {}): IndexMeta | string {
    if (!fs.existsSync(this.file)) return 'index file missing';
    if (!fs.existsSync(this.metaFile)) return 'index sidecar missing';
    let meta: IndexMeta;
    try {
      meta = JSON.parse(fs.readFileSync(this.metaFile, 'utf8')) as IndexMeta;
    } catch {
      return 'index sidecar unreadable';
    }
    if (meta.format !== 1 || meta.dimension !== this.dimension || meta.model !== this.model)
      return 'index built for another model or format';
    if (meta.m !== this.params.m || meta.efConstruction !== this.params.efConstruction)
      return 'HNSW parameters changed';
    const unchanged = !opts.alwaysHash && sameIdentity(this.file, meta.saved);
    if (!unchanged && sha256File(this.file) !== meta.sha256)
      return 'index file does not match its sidecar (torn or corrupt write)';
    if (meta.seq > this.maxLogSeq()) return 'index is newer than the store (store restored from an older copy?)';
    // A copied or restored folder: the hash vouches for the file, so its new identity is recorded and
    // the next open skips the hash (2.1 s at a million windows). doctor (alwaysHash) changes nothing.
    if (!unchanged && !opts.alwaysHash && this.persist) {
      meta.saved = identityOf(this.file);
      writeFileAtomic(this.metaFile, `${JSON.stringify(meta, null, 2)}\n`);
    }
    return meta;
  }

  /** The loaded file's sidecar taken as this index's state; null, or why the file is not this index. */
  private adopt(meta: IndexMeta): string | null {
    if (this.index.getNumDimensions() !== this.dimension) return 'index dimension mismatch';
    this.seq = meta.seq;
    this.deleted = meta.deleted;
    this.index.setEf(this.params.efSearch);
    return null;
  }

  private maxLogSeq(): number {
    const row = this.db.prepare('SELECT coalesce(max(seq), 0) AS s FROM index_log').get() as { s: number };
    return row.s;
  }

  private fresh(capacity: number): void {
    this.index = new hnswlib.HierarchicalNSW('ip', this.dimension);
    this.index.initIndex({
      maxElements: Math.max(1024, capacity),
      m: this.params.m,
      efConstruction: this.params.efConstruction,
      randomSeed: 100,
    });
    this.index.setEf(this.params.efSearch);
    this.deleted = 0;
  }

  /** Rebuilds from every window vector in SQLite. */
  async rebuild(onProgress?: (done: number, total: number) => void): Promise<void> {
    this.rebuildNow(onProgress);
  }

  private rebuildNow(onProgress?: (done: number, total: number) => void): void {
    // one read transaction: the windows and the log position come from the same snapshot
    this.db.transaction(() => {
      const total = (this.db.prepare('SELECT count(*) AS n FROM windows').get() as { n: number }).n;
      this.fresh(Math.ceil(total * 1.25));
      const seq = this.maxLogSeq();
      let done = 0;
      for (const row of this.db.prepare('SELECT id, vector FROM windows ORDER BY id').iterate() as Iterable<{
        id: number;
        vector: Buffer;
      }>) {
        this.index.addPoint(Array.from(blobToVector(row.vector)), row.id);
        if (++done % 1000 === 0) onProgress?.(done, total);
      }
      onProgress?.(done, total);
      this.seq = seq;
    })();
    this.dirty = true;
  }

  private ensureCapacity(extra: number): void {
    const need = this.index.getCurrentCount() + extra;
    if (need > this.index.getMaxElements()) this.index.resizeIndex(Math.ceil(need * 1.5));
  }

  /** Applies index_log entries newer than what the index has seen; returns how many. */
  catchUp(): number {
    const rows = this.db
      .prepare(
        `SELECT l.seq, l.window_id AS id, l.op, w.vector FROM index_log l LEFT JOIN windows w ON w.id = l.window_id
         WHERE l.seq > ? ORDER BY l.seq`,
      )
      .all(this.seq) as { seq: number; id: number; op: 'add' | 'del'; vector: Buffer | null }[];
    if (rows.length === 0) return 0;
    this.ensureCapacity(rows.filter((r) => r.op === 'add').length);
    for (const r of rows) {
      if (r.op === 'add') {
        // The window may have been deleted again later in the log: then there is nothing to add.
        if (r.vector) this.index.addPoint(Array.from(blobToVector(r.vector)), r.id);
      } else {
        try {
          this.index.markDelete(r.id);
          this.deleted++;
        } catch {
          // not in the index (its add was skipped above) or already deleted: nothing to do
        }
      }
      this.seq = r.seq;
    }
    this.dirty = true;
    // Deleted points still cost search time and memory; compact when they dominate.
    if (this.deleted > 1000 && this.deleted > this.index.getCurrentCount() * 0.3) this.rebuildNow();
    return rows.length;
  }

  get efSearch(): number {
    return this.params.efSearch;
  }

  setEfSearch(efSearch: number): void {
    this.params = { ...this.params, efSearch };
    this.index.setEf(efSearch);
  }

  async search(vector: Float32Array, k: number, filter: DocFilter | null = null): Promise<VectorHit[]> {
    return this.searchNow(vector, k, filter);
  }

  /** hnswlib checks the filter while it walks the graph: windows of other documents are never candidates. */
  searchNow(vector: Float32Array, k: number, filter: DocFilter | null = null): VectorHit[] {
    const count = this.index.getCurrentCount();
    if (count === 0 || k <= 0) return [];
    const n = Math.min(k, count);
    if (this.params.efSearch < n) this.index.setEf(n);
    const windowDoc = filter ? this.windowDocs.at(this.seq) : null;
    const res = windowDoc
      ? this.index.searchKnn(Array.from(vector), n, (wid) => admits(filter, windowDoc[wid] ?? 0))
      : this.index.searchKnn(Array.from(vector), n);
    if (this.params.efSearch < n) this.index.setEf(this.params.efSearch);
    return res.neighbors.map((id, i) => ({ windowId: id, score: 1 - res.distances[i]! }));
  }

  private readonly windowDocs: WindowDocuments;

  async size(): Promise<number> {
    return this.count;
  }

  /** Windows in the index (without those marked deleted). */
  get count(): number {
    return this.index.getCurrentCount() - this.deleted;
  }

  get appliedSeq(): number {
    return this.seq;
  }

  /** Writes the index to a temporary file, fsyncs it and renames it over the old one, then the sidecar. */
  async save(): Promise<void> {
    this.saveNow();
  }

  private saveNow(): void {
    const tmp = `${this.file}.tmp-${process.pid}`;
    this.index.writeIndexSync(tmp);
    fsyncFile(tmp);
    const meta: IndexMeta = {
      format: 1,
      dimension: this.dimension,
      model: this.model,
      m: this.params.m,
      efConstruction: this.params.efConstruction,
      seq: this.seq,
      count: this.index.getCurrentCount(),
      deleted: this.deleted,
      sha256: sha256File(tmp),
    };
    fs.renameSync(tmp, this.file);
    meta.saved = identityOf(this.file);
    writeFileAtomic(this.metaFile, `${JSON.stringify(meta, null, 2)}\n`);
    this.dirty = false;
  }

  /** Saves if anything changed since the last save (never where the index only reads). */
  async flush(): Promise<void> {
    this.flushNow();
  }

  private flushNow(): void {
    if (this.dirty && this.persist) this.saveNow();
  }

  fileBytes(): number {
    return fs.existsSync(this.file) ? fs.statSync(this.file).size : 0;
  }
}
