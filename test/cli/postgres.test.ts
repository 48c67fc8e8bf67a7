import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SAMPLE_DIR, tempDir } from '../helpers.js';
import { freshSchema, PG_URL } from '../pg.js';
import { runCli } from './run-cli.js';

// The CLI on the PostgreSQL backend, selected by RAGASK_DATABASE_URL alone: ingest, ask, stats,
// doctor, `migrate --to` from the embedded store, and eval on both backends measured the same way.

describe.skipIf(!PG_URL)('ragask on PostgreSQL', () => {
  const dir = tempDir();
  const drops: (() => Promise<void>)[] = [];
  let pgEnv: Record<string, string>;
  const sqlite = (args: string[]) => runCli(path.join(dir, 'sqlite'), args, { RAGASK_DATABASE_URL: '' });
  const onPg = (args: string[]) => runCli(path.join(dir, 'unused'), args, pgEnv);

  beforeAll(async () => {
    const s = await freshSchema('cli');
    drops.push(s.drop);
    pgEnv = { RAGASK_DATABASE_URL: s.url };
    expect((await sqlite(['ingest', SAMPLE_DIR])).code).toBe(0);
  });
  afterAll(async () => {
    for (const d of drops) await d();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('ingests, answers and reports its store from the database alone, writing nothing to RAGASK_DATA_DIR', async () => {
    const r = await onPg(['ingest', SAMPLE_DIR]);
    expect(r.code, r.err).toBe(0);
    expect(r.out).toMatch(/ingested 15 new/);
    const stats = JSON.parse((await onPg(['stats', '--json'])).out);
    const fromSqlite = JSON.parse((await sqlite(['stats', '--json'])).out);
    expect(stats).toMatchObject({
      backend: 'postgres',
      documents: fromSqlite.documents,
      chunks: fromSqlite.chunks,
      windows: fromSqlite.windows,
    });
    const ask = JSON.parse(
      (await onPg(['ask', 'How long must the PM-5 warm up before readings are valid?', '--json'])).out,
    );
    expect(ask.evidence[0].citation.source).toMatch(/particula-pm5\.md$/);
    expect(fs.existsSync(path.join(dir, 'unused'))).toBe(false);
    const doctor = await onPg(['doctor']);
    expect(doctor.out).toMatch(/✓ store: postgresql:.*pgvector \d+\.\d+/);
    // and which way a search restricted to what an asker may see runs on that pgvector
    expect(doctor.out).toMatch(
      /✓ filtered search: pgvector \d+\.\d+\.\d+: (iterative index scans|no iterative index scans)/,
    );
  });

  it('migrates the embedded store into an empty database, scopes and vectors as they were, and again changes nothing', async () => {
    expect(
      (await sqlite(['sources', 'set', path.join(SAMPLE_DIR, 'projects', 'heron.md'), '--scope', 'channel:CHERON']))
        .code,
    ).toBe(0);
    const target = await freshSchema('migrate');
    drops.push(target.drop);
    const r = await sqlite(['migrate', '--to', target.url]);
    expect(r.code, r.err).toBe(0);
    expect(r.out).toMatch(/copied 15 documents \(\d+ windows\)/);
    const again = await sqlite(['migrate', '--to', target.url]);
    expect(again.out).toMatch(/copied 0 documents \(0 windows\).*15 already there/);
    const env = { RAGASK_DATABASE_URL: target.url };
    const list = (await runCli(dir, ['sources', 'list', '--json'], env)).out;
    const heron = (JSON.parse(list) as { source: string; scope: unknown }[]).find((d) =>
      d.source.endsWith('heron.md'),
    )!;
    expect(heron.scope).toBe('channel:CHERON');
    // the copied vectors answer as the originals do: the same evidence, in the same order
    const q = ['ask', 'Which frequency band does the Skylink LR-9 radio of Project Heron use?', '--json'];
    const a = JSON.parse((await sqlite(q)).out) as { evidence: { citation: { source: string } }[] };
    const b = JSON.parse((await runCli(dir, q, env)).out) as { evidence: { citation: { source: string } }[] };
    expect(b.evidence.map((e) => e.citation.source)).toEqual(a.evidence.map((e) => e.citation.source));
    // with a database set, migrate refuses rather than copy a store onto itself
    expect((await runCli(dir, ['migrate', '--to', target.url], env)).err).toMatch(/unset RAGASK_DATABASE_URL/);
  });

  it('bench --ingest measures both backends against the encoder alone, and leaves no schema behind', async () => {
    const file = path.join(dir, 'bench-ingest.json');
    const r = await onPg(['bench', '--ingest', '--dataset', SAMPLE_DIR, '--json', file]);
    expect(r.code, r.err).toBe(0);
    const rows = JSON.parse(fs.readFileSync(file, 'utf8')).ingest as Record<string, number | string>[];
    expect(rows.map((x) => x.backend)).toEqual(['sqlite', 'postgres']);
    for (const row of rows) {
      expect(row.windows).toBe(rows[0]!.windows);
      for (const k of ['ingest_windows_per_s', 'raw_encode_windows_per_s', 'ratio']) expect(row[k]).toBeGreaterThan(0);
    }
    const client = new pg.Client({ connectionString: PG_URL });
    await client.connect();
    try {
      const left = await client.query("SELECT nspname FROM pg_namespace WHERE nspname LIKE 'ragask_bench_ingest_%'");
      expect(left.rows).toEqual([]);
    } finally {
      await client.end();
    }
  });

  it('evaluates on either backend with the same retrieval figures (BM25 from term statistics, not ts_rank)', async () => {
    const run = async (env: Record<string, string>, name: string) => {
      const file = path.join(dir, `${name}.json`);
      const r = await runCli(
        path.join(dir, `eval-${name}`),
        ['eval', '--dataset', SAMPLE_DIR, '--modes', 'bm25,hybrid', '--k', '5', '--json', file],
        env,
      );
      expect(r.code, r.err).toBe(0);
      return JSON.parse(fs.readFileSync(file, 'utf8')) as { modes: Record<string, Record<string, number>> };
    };
    const a = await run({ RAGASK_DATABASE_URL: '' }, 'sqlite');
    const b = await run(pgEnv, 'postgres');
    // BM25 is the same arithmetic on both: the same figures. Hybrid adds each backend's own HNSW
    // (hnswlib, pgvector), whose near-tied neighbours may come back in another order: one of the
    // 13 questions may differ (musique's 100 differed by two, BENCHMARKS.md), no more
    const margin = { bm25: 0.02, hybrid: 0.08 };
    for (const mode of ['bm25', 'hybrid'] as const) {
      expect(Math.abs(b.modes[mode]!['all_support@5']! - a.modes[mode]!['all_support@5']!), mode).toBeLessThanOrEqual(
        margin[mode],
      );
      expect(Math.abs(b.modes[mode]!['recall@5']! - a.modes[mode]!['recall@5']!), mode).toBeLessThanOrEqual(
        margin[mode],
      );
    }
    // the dataset's store was a schema of its own, not the team's documents
    const client = new pg.Client({ connectionString: PG_URL });
    await client.connect();
    try {
      const schemas = (
        await client.query<{ n: string }>(
          "SELECT nspname AS n FROM pg_namespace WHERE nspname LIKE 'ragask_eval_sample_%'",
        )
      ).rows.map((r) => r.n);
      expect(schemas.length).toBeGreaterThan(0);
      for (const s of schemas) await client.query(`DROP SCHEMA IF EXISTS ${s} CASCADE`);
    } finally {
      await client.end();
    }
  });
});
