import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Config } from '../../src/config.js';
import { ingest } from '../../src/ingest/ingest.js';
import { Encoder } from '../../src/models/encoder.js';
import { SqliteStore } from '../../src/store/sqlite/store.js';
import type { Store } from '../../src/store/interfaces.js';
import { SAMPLE_DIR, tempDir, testConfig } from '../helpers.js';

let encoder: Encoder;
let config: Config;
let store: Store;
let dir: string;
let docs: string;

function openStore(): Store {
  return SqliteStore.open({
    dataDir: config.dataDir,
    model: encoder.id,
    dimension: encoder.dimension,
    hnsw: config.hnsw,
  });
}

beforeAll(async () => {
  dir = tempDir();
  docs = path.join(dir, 'docs');
  fs.mkdirSync(docs);
  config = testConfig(path.join(dir, 'data'));
  encoder = await Encoder.load({
    modelsDir: config.modelsDir,
    model: config.model,
    variant: config.modelVariant,
    threads: 1,
  });
  store = openStore();
});
afterAll(async () => {
  await store.close();
  await encoder.release();
  fs.rmSync(dir, { recursive: true, force: true });
});

const run = (inputs: string[], opts = {}) => ingest({ store, encoder, config }, inputs, opts);

describe('ingesting the sample corpus', () => {
  it('ingests every document of the sample folder, skipping what .ragaskignore lists', async () => {
    const r = await run([SAMPLE_DIR]);
    expect(r.failed).toEqual([]);
    expect(r.added).toBe(15);
    const sources = (await store.documents.listDocuments()).map((d) => path.relative(SAMPLE_DIR, d.source));
    expect(sources).toContain('datasheets/vantor-ts40.pdf');
    expect(sources).not.toContain('questions.jsonl');
    expect(sources).not.toContain('README.md');
    const c = await store.documents.counts();
    expect(c.windows).toBeGreaterThanOrEqual(c.chunks);
    expect(await store.index.size()).toBe(c.windows);
  });

  it('skips unchanged documents on a second run', async () => {
    const r = await run([SAMPLE_DIR]);
    expect(r).toMatchObject({ added: 0, updated: 0, unchanged: 15, windows: 0 });
  });

  it('stores heading paths, pages and evidence density for citations', async () => {
    const pdf = (await store.documents.getDocumentBySource(path.join(SAMPLE_DIR, 'datasheets', 'vantor-ts40.pdf')))!;
    const rows = (await store.documents.chunksOfDocument(pdf.id)).filter(
      (c) => c.kind === 'table_row' && c.text.startsWith('Temperature: -20'),
    );
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ headingPath: ['Calibration'], page: 2 });
    expect(rows[0]!.density).toBeGreaterThan(0.2);
  });
});

describe('changes and pruning', () => {
  it('replaces a changed document, adds a new one and prunes a deleted one only with --prune', async () => {
    fs.writeFileSync(path.join(docs, 'a.md'), '# Alpha\n\nThe alpha unit runs at 12 V.\n');
    fs.writeFileSync(path.join(docs, 'b.md'), '# Beta\n\nThe beta unit runs at 5 V.\n');
    expect((await run([docs])).added).toBe(2);
    fs.writeFileSync(path.join(docs, 'a.md'), '# Alpha\n\nThe alpha unit now runs at 24 V.\n');
    fs.rmSync(path.join(docs, 'b.md'));
    const r1 = await run([docs]);
    expect(r1).toMatchObject({ updated: 1, removed: 0 });
    expect(await store.documents.getDocumentBySource(path.join(docs, 'b.md'))).toBeDefined();
    const r2 = await run([docs], { prune: true });
    expect(r2.removed).toBe(1);
    expect(await store.documents.getDocumentBySource(path.join(docs, 'b.md'))).toBeUndefined();
    const a = (await store.documents.getDocumentBySource(path.join(docs, 'a.md')))!;
    expect((await store.documents.chunksOfDocument(a.id)).map((c) => c.text).join(' ')).toContain('24 V');
    // the index follows: no window of the deleted or replaced versions remains searchable
    expect(await store.index.size()).toBe((await store.documents.counts()).windows);
  });
});

describe('reStructuredText', () => {
  it('ingests a .rst file and a .txt file written in it by their structure: title, term entries, code', async () => {
    const page = (name: string) =>
      `${'='.repeat(name.length)}\n${name}\n${'='.repeat(name.length)}\n\nOptions\n=======\n\n` +
      'linger.idle-timeout\n  how many seconds an idle connection stays open\n\n  Default: 30\n\n' +
      'Set it so::\n\n  linger.idle-timeout = 30\n';
    fs.writeFileSync(path.join(docs, 'linger.rst'), page('Linger'));
    fs.writeFileSync(path.join(docs, 'keepalive.txt'), page('Keepalive'));
    expect((await run([path.join(docs, 'linger.rst'), path.join(docs, 'keepalive.txt')])).failed).toEqual([]);
    for (const [file, title] of [
      ['linger.rst', 'Linger'],
      ['keepalive.txt', 'Keepalive'],
    ]) {
      const doc = (await store.documents.getDocumentBySource(path.join(docs, file!)))!;
      expect(doc.title).toBe(title);
      const chunks = await store.documents.chunksOfDocument(doc.id);
      expect(chunks.find((c) => c.text === 'Default: 30')?.entry?.term).toBe('linger.idle-timeout');
      expect(chunks.find((c) => c.kind === 'code')?.text).toBe('linger.idle-timeout = 30');
    }
  });
});

describe('bad input', () => {
  it('reports each bad file in one line, ingests the rest, and never loses what was stored', async () => {
    fs.writeFileSync(path.join(docs, 'good.md'), '# Good\n\nThe gamma unit runs at 3.3 V.\n');
    fs.writeFileSync(path.join(docs, 'empty.md'), '');
    fs.writeFileSync(path.join(docs, 'front-matter-only.md'), '---\ntitle: Placeholder\n---\n');
    fs.writeFileSync(path.join(docs, 'binary.txt'), Buffer.from([0x00, 0x01, 0x02, 0xff, 0x00, 0x10]));
    const pdf = fs.readFileSync(path.join(SAMPLE_DIR, 'datasheets', 'vantor-ts40.pdf'));
    fs.writeFileSync(path.join(docs, 'truncated.pdf'), pdf.subarray(0, 700));
    fs.writeFileSync(path.join(docs, 'notes.odt'), 'not supported');
    fs.writeFileSync(path.join(docs, 'memo.docx'), 'a text file with the wrong name');
    fs.writeFileSync(
      path.join(docs, 'corpus.jsonl'),
      '{"id": "r1", "title": "Record one", "text": "The delta unit runs at 48 V."}\n{broken json\n{"id": "r2", "title": "No text"}\n{"id": "r3", "title": "Record three", "text": "The epsilon unit runs at 1.8 V."}\n',
    );
    const r = await run([docs, path.join(docs, 'notes.odt'), path.join(dir, 'missing-folder')]);
    const byFile = (name: string) => r.failed.filter((f) => path.basename(f.file) === name);
    // an empty file is skipped with a warning, not a failure
    expect(byFile('empty.md')).toEqual([]);
    expect(r.skipped.map((f) => path.basename(f.file))).toEqual(['empty.md', 'front-matter-only.md']);
    expect(r.skipped[0]!.reason).toBe('empty file: nothing to ingest');
    expect(byFile('binary.txt')[0]!.reason).toMatch(/binary/);
    expect(byFile('truncated.pdf')[0]!.reason).toMatch(/corrupt or truncated PDF/);
    expect(byFile('notes.odt')[0]!.reason).toMatch(/unsupported file type/);
    expect(byFile('memo.docx')[0]!.reason).toMatch(/not a \.docx file/);
    expect(byFile('missing-folder')[0]!.reason).toMatch(/no such file/);
    const jsonl = byFile('corpus.jsonl');
    expect(jsonl.map((f) => f.line)).toEqual([2, 3]);
    expect(jsonl[0]!.reason).toMatch(/not valid JSON/);
    expect(jsonl[1]!.reason).toMatch(/missing or empty "text"/);
    for (const f of r.failed) expect(f.reason).not.toMatch(/\n/);
    // the rest of the batch is in
    expect(await store.documents.getDocumentBySource(path.join(docs, 'good.md'))).toBeDefined();
    expect(await store.documents.getDocumentBySource(`${path.join(docs, 'corpus.jsonl')}#r1`)).toBeDefined();
    expect(await store.documents.getDocumentBySource(`${path.join(docs, 'corpus.jsonl')}#r3`)).toBeDefined();
  });

  it('keeps the stored version of a document whose file becomes corrupt', async () => {
    const file = path.join(docs, 'sheet.pdf');
    fs.copyFileSync(path.join(SAMPLE_DIR, 'datasheets', 'vantor-ts40.pdf'), file);
    await run([file]);
    const before = (await store.documents.getDocumentBySource(file))!;
    fs.writeFileSync(file, fs.readFileSync(file).subarray(0, 500));
    const r = await run([docs], { prune: true });
    expect(r.failed.some((f) => f.file === file)).toBe(true);
    const after = await store.documents.getDocumentBySource(file);
    expect(after?.contentHash).toBe(before.contentHash);
    expect((await store.documents.chunksOfDocument(after!.id)).length).toBeGreaterThan(0);
  });

  it('refuses a file over the size cap, naming the setting', async () => {
    const big = path.join(docs, 'big.txt');
    fs.writeFileSync(big, 'x '.repeat(2000));
    const r = await ingest({ store, encoder, config: { ...config, maxFileBytes: 1000 } }, [big]);
    expect(r.failed[0]!.reason).toMatch(/RAGASK_MAX_FILE_MB/);
    fs.rmSync(big);
  });
});

describe('interrupted ingest', () => {
  it('stops between batches when aborted, leaves whole documents only, and the next run resumes', async () => {
    const many = path.join(dir, 'many');
    fs.mkdirSync(many);
    for (let i = 0; i < 40; i++)
      fs.writeFileSync(
        path.join(many, `doc${i}.md`),
        `# Doc ${i}\n\n${`Paragraph ${i} about the unit number ${i}. `.repeat(90)}\n`,
      );
    const controller = new AbortController();
    const r1 = await ingest(
      {
        store,
        encoder,
        config,
        progress: { start() {}, update: (done) => done >= 5 && controller.abort(), stop() {} },
      },
      [many],
      { signal: controller.signal },
    );
    expect(r1.interrupted).toBe(true);
    const partial = (await store.documents.sourcesUnder(many + path.sep)).length;
    expect(partial).toBeLessThan(40);
    for (const d of await store.documents.sourcesUnder(many + path.sep))
      expect((await store.documents.chunksOfDocument(d.id)).length).toBeGreaterThan(0);
    const r2 = await run([many]);
    expect(r2.unchanged).toBe(partial);
    expect(r2.added).toBe(40 - partial);
  });

  it('fails the ingest when a batch cannot be written, keeping the batches written before it', async () => {
    // a batch is written while the next is embedded: its failure still ends the ingest, not a later one
    const few = path.join(dir, 'few');
    fs.mkdirSync(few);
    for (let i = 0; i < 40; i++)
      fs.writeFileSync(
        path.join(few, `doc${i}.md`),
        `# Doc ${i}\n\n${`Note ${i} on the relay station. `.repeat(120)}\n`,
      );
    let writes = 0;
    const calls: string[] = [];
    const documents: Store['documents'] = Object.create(store.documents, {
      replaceDocuments: {
        value: async (...args: Parameters<Store['documents']['replaceDocuments']>) => {
          calls.push('write');
          if (++writes === 2) throw new Error('disk full');
          return store.documents.replaceDocuments(...args);
        },
      },
    });
    // a backend that builds its vector index after a first load (PostgreSQL's does)
    const vectors: Store['vectors'] = Object.create(store.vectors, {
      beginBulkLoad: {
        value: async () => {
          calls.push('begin');
          return true;
        },
      },
      finishBulkLoad: {
        value: async () => {
          calls.push('finish');
        },
      },
    });
    const failing: Store = Object.create(store, { documents: { value: documents }, vectors: { value: vectors } });
    await expect(ingest({ store: failing, encoder, config }, [few])).rejects.toThrow('disk full');
    const stored = (await store.documents.sourcesUnder(few + path.sep)).length;
    expect(stored).toBeGreaterThan(0);
    expect(stored).toBeLessThan(40);
    // the index set aside is built over what was written, although the load failed
    expect(calls[0]).toBe('begin');
    expect(calls.at(-1)).toBe('finish');
    expect(calls.filter((c) => c === 'finish')).toHaveLength(1);
  });
});
