import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import { openDatabase } from '../../src/store/sqlite/db.js';
import { SqliteConversations } from '../../src/store/sqlite/conversations.js';
import { RESULT_CODEC } from '../../src/slack/state/open.js';
import { ROOT, SAMPLE_DIR, tempDir } from '../helpers.js';
import { runCli } from './run-cli.js';
import { FakeLlm } from '../support/llm-stand-in.js';

let dir: string;

/** Runs the CLI in-process on this file's store (see runCli). */
const ragask = (args: string[], env: Record<string, string> = {}) => runCli(path.join(dir, 'data'), args, env);

beforeAll(async () => {
  dir = tempDir();
  const r = await ragask(['ingest', SAMPLE_DIR]);
  expect(r.code).toBe(0);
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('ragask CLI', () => {
  it('ingest reports what it did in one line', async () => {
    const r = await ragask(['ingest', SAMPLE_DIR]);
    expect(r.out).toMatch(/ingested 0 new, 0 changed, 15 unchanged, 0 removed, 0 failed/);
  });

  it('ask --json gives the answer, the cited evidence and every hop in a stable shape', async () => {
    const r = await ragask([
      'ask',
      'Who leads the project whose drone lost telemetry on 2024-03-14?',
      '--json',
      '--k',
      '3',
    ]);
    expect(r.code).toBe(0);
    const j = JSON.parse(r.out);
    expect(Object.keys(j)).toEqual([
      'question',
      'answer',
      'chain',
      'evidence',
      'stop_reason',
      'incomplete',
      'suggestions',
      'hops',
      'timings_ms',
      'writer',
    ]);
    // no writer is configured: the reply is the extractive one
    expect(j.writer).toBeNull();
    expect(Object.keys(j.answer)).toEqual([
      'status',
      'kind',
      'value',
      'sentence',
      'source',
      'span',
      'comparison',
      'reading',
      'confidence',
      'conflicts',
      'alternatives',
      'leads',
    ]);
    // a short answer is given with the sentence and the offsets it was read from; a declined one with leads
    if (j.answer.value !== null) {
      expect(j.answer.sentence).toContain(j.answer.value);
      expect(j.answer.span.end - j.answer.span.start).toBe(j.answer.value.length);
    } else {
      expect(j.answer.leads.length).toBeGreaterThan(0);
    }
    expect(j.answer.confidence.score).toBeGreaterThanOrEqual(0);
    expect(j.answer.confidence.score).toBeLessThanOrEqual(1);
    expect(j.answer.reading.features).toHaveProperty('pAnswer');
    expect(j.evidence).toHaveLength(3);
    expect(j.evidence[0]).toMatchObject({
      rank: 1,
      citation: { document: expect.any(String), heading_path: expect.any(Array) },
    });
    expect(j.hops[1].bridge).toBe('Project Falcon');
  });

  it('ask --trace prints each hop with its query, scores, candidates and coherence', async () => {
    const r = await ragask(['ask', 'Who leads the project whose drone lost telemetry on 2024-03-14?', '--trace']);
    expect(r.out).toMatch(/^(Answer: .+|I could not find a definite answer.*)$/m);
    expect(r.out).toMatch(/confidence (high|medium|low) \(P\(right\) 0\.\d\d\)/);
    expect(r.out).toMatch(/hop 1 {2}\[question/);
    expect(r.out).toMatch(/bridge candidates:\n {4}- Project Falcon/);
    expect(r.out).toMatch(
      /coherence: cosine 0\.\d{3} \(threshold 0(?:\.\d+)?\), directional -?0\.\d{3}, drift -?0\.\d{3}; gate P\(next hop right\) 0\.\d\d \(threshold 0\.\d\d\)/,
    );
  });

  it('ask --threshold stops for suggestions and --continue resumes with one', async () => {
    const stopped = await ragask([
      'ask',
      'Who leads the project whose drone lost telemetry on 2024-03-14?',
      '--threshold',
      '0.999',
    ]);
    // the likeliest first, each with where it leads
    expect(stopped.out).toMatch(/Suggested next hops.*\n(?: {2}\d\) .*\n)* {2}\d\) Project Falcon → its page/);
    const resumed = await ragask([
      'ask',
      'Who leads the project whose drone lost telemetry on 2024-03-14?',
      '--threshold',
      '0.999',
      '--continue',
      '1',
      '--json',
    ]);
    expect(JSON.parse(resumed.out).hops[1].formedBy).toBe('suggestion');
  });

  it('ask --json with a writer: the written sentences, each checked against the evidence it cites', async () => {
    // a model that copies the line naming the lead from the excerpt holding it, and adds a wrong one
    const llm = new FakeLlm([
      {
        reply: (prompt) => {
          const n = /\[(\d)\][^[]*Project lead: Mirela Ostrowski/.exec(prompt)?.[1] ?? '1';
          return `Project lead: Mirela Ostrowski [${n}]. The project lead is Tomasz Brenner [${n}].`;
        },
      },
    ]);
    await llm.start();
    try {
      const r = await ragask(['ask', 'Who leads the project whose drone lost telemetry on 2024-03-14?', '--json'], {
        RAGASK_WRITER_URL: llm.url,
        RAGASK_WRITER_MODEL: llm.model,
      });
      expect(r.code).toBe(0);
      const w = JSON.parse(r.out).writer;
      const evidence = JSON.parse(r.out).evidence as { snippet: string }[];
      expect(w.model).toBe('stand-in-model');
      expect(w.text).toMatch(/^Project lead: Mirela Ostrowski \[\d\]\.$/);
      expect(w.sentences.map((s: { kept: boolean; reason: string | null }) => [s.kept, s.reason])).toEqual([
        [true, null],
        [false, 'value_not_in_source'],
      ]);
      // each citation number indexes the reply's evidence list
      expect(evidence[w.sentences[0].citations[0] - 1]!.snippet).toContain('Mirela Ostrowski');
      expect(llm.requests).toHaveLength(1);
      const plain = await ragask(
        ['ask', 'Who leads the project whose drone lost telemetry on 2024-03-14?', '--trace'],
        {
          RAGASK_WRITER_URL: llm.url,
          RAGASK_WRITER_MODEL: llm.model,
        },
      );
      expect(plain.out.split('\n')[0]).toBe('Written by stand-in-model, checked against the evidence [n] below:');
      expect(plain.out).toContain('(1 written sentence dropped: not supported by what it cited)');
      // the trace says which sentence was dropped, and why
      expect(plain.out).toMatch(
        /\n {2}- dropped \(value_not_in_source: Tomasz Brenner\), cites \[\d\]: The project lead is Tomasz Brenner \[\d\]\.\n/,
      );
    } finally {
      await llm.stop();
    }
  }, 120_000);

  it('ask --single-hop --json lists scored snippets with citations', async () => {
    const r = await ragask(['ask', 'PM-5 warm-up time', '--single-hop', '--json', '--k', '2']);
    const j = JSON.parse(r.out);
    expect(j.results).toHaveLength(2);
    expect(j.results[0]).toMatchObject({
      rank: 1,
      scores: { rerank: expect.any(Number), dense: expect.any(Number) },
      citation: { document: 'PM-5 particulate sensor datasheet' },
    });
  });

  it('stats --json counts documents, chunks and windows', async () => {
    const j = JSON.parse((await ragask(['stats', '--json'])).out);
    expect(j).toMatchObject({ documents: 15, model: 'all-MiniLM-L6-v2/int8', dimension: 384 });
    expect(j.windows).toBe(j.indexSize);
  });

  it('bench --ingest measures ingest against the encoder alone on the same windows', async () => {
    const file = path.join(dir, 'bench-ingest.json');
    const r = await ragask(['bench', '--ingest', '--dataset', SAMPLE_DIR, '--json', file]);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/ingest windows\/s/);
    const [row, ...rest] = JSON.parse(fs.readFileSync(file, 'utf8')).ingest as Record<string, number>[];
    expect(rest).toEqual([]);
    expect(row!.windows).toBeGreaterThan(0);
    for (const k of ['ingest_windows_per_s', 'raw_encode_windows_per_s', 'ratio']) expect(row![k]).toBeGreaterThan(0);
    expect(row!.ratio).toBeCloseTo(row!.ingest_windows_per_s! / row!.raw_encode_windows_per_s!, 2);
  });

  it('eval --json writes exactly the documented shape', async () => {
    const file = path.join(dir, 'eval.json');
    const r = await ragask([
      'eval',
      '--dataset',
      SAMPLE_DIR,
      '--modes',
      'bm25,multihop',
      '--k',
      '2,5',
      '--json',
      file,
      '--store',
      path.join(dir, 'eval-store'),
    ]);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/mode bm25/);
    const j = JSON.parse(fs.readFileSync(file, 'utf8'));
    expect(j.dataset).toBe('sample');
    expect(j.questions).toBe(13);
    expect(Object.keys(j.modes)).toEqual(['bm25', 'multihop']);
    for (const m of Object.values(j.modes) as Record<string, unknown>[]) {
      for (const k of ['recall@2', 'all_support@2', 'recall@5', 'all_support@5', 'answer_in_evidence@3', 'mean_hops']) {
        expect(m[k]).toBeGreaterThanOrEqual(0);
        expect(m[k]).toBeLessThanOrEqual(k === 'mean_hops' ? 5 : 1);
      }
      expect(m.latency_ms).toEqual({ p50: expect.any(Number), p95: expect.any(Number) });
    }
  });

  it('skips an empty file with one warning and exits 0, storing the rest', async () => {
    const folder = path.join(dir, 'with-empty');
    fs.mkdirSync(folder);
    fs.writeFileSync(path.join(folder, 'empty.md'), '');
    fs.writeFileSync(path.join(folder, 'page.md'), '# Page\n\nThe relay runs at 12 V.\n');
    const r = await ragask(['ingest', folder]);
    expect(r.code).toBe(0);
    expect(r.err).toContain(
      `ragask: warning: ${path.join(folder, 'empty.md')}: empty file: nothing to ingest (skipped)\n`,
    );
    expect(r.out).toMatch(/1 empty skipped, 0 failed/);
  });

  it('reports bad input in one line on stderr with a non-zero exit', async () => {
    const missing = await ragask(['ingest', path.join(dir, 'nope')]);
    expect(missing.code).toBe(1);
    expect(missing.err).toMatch(/ragask: .*nope: no such file or folder\n/);
    // one line for the bad input, then the summary: no log line repeating it
    expect(
      missing.err
        .trim()
        .split('\n')
        .filter((l) => l.includes('nope')),
    ).toHaveLength(1);
    const badFlag = await ragask(['ask', 'x', '--k', 'lots']);
    expect(badFlag.code).not.toBe(0);
    expect(badFlag.err).toMatch(/--k must be an integer/);
    const badSizes = await ragask(['bench', '--scale', '--sizes', '10k,50k']);
    expect(badSizes.code).not.toBe(0);
    expect(badSizes.err).toMatch(
      /--sizes must be a comma-separated list of window counts from 100 to 10000000 \(got "10k,50k"\)/,
    );
  });

  it('names each bad setting, and the command that fetches a missing model', async () => {
    const bad = await ragask(['stats'], { RAGASK_MAX_HOPS: 'lots', RAGASK_HNSW_M: '0' });
    expect(bad.code).toBe(1);
    expect(bad.err.trim().split('\n').sort()).toEqual([
      'ragask: RAGASK_HNSW_M: must be an integer from 4 to 128 (got "0")',
      'ragask: RAGASK_MAX_HOPS: must be an integer from 1 to 5 (got "lots")',
    ]);
    const noModel = await ragask(['stats'], { RAGASK_MODELS_DIR: path.join(dir, 'no-models') });
    expect(noModel.err).toMatch(/run `npm run models` to fetch it/);
    expect(noModel.err).not.toContain('--encoder=');
    expect(noModel.err.trim().split('\n')).toHaveLength(1);
    // the optional stronger encoder, not fetched: the line names the command that makes it
    const noEncoder = await ragask(['stats'], {
      RAGASK_MODEL: 'all-mpnet-base-v2',
      RAGASK_MODELS_DIR: path.join(dir, 'no-models'),
    });
    expect(noEncoder.code).toBe(1);
    expect(noEncoder.err).toContain('`npm run models -- --encoder=all-mpnet-base-v2`');
    expect(noEncoder.err.trim().split('\n')).toHaveLength(1);
  });

  it('feedback lists what was given in a context, to that context only; everything only with --all', async () => {
    const db = openDatabase(path.join(dir, 'data', 'ragask.db'));
    const store = new SqliteConversations(db, { codec: RESULT_CODEC, ttlMs: 3600_000 });
    await store.feedback.addFeedback({
      stateKey: 'C1:1.1:1.2:x',
      channel: 'C1',
      threadTs: '1.1',
      messageTs: '1.2',
      user: 'U1',
      value: 'not_helpful',
      question: 'Who leads Falcon?',
      answer: 'Mirela Ostrowski',
      evidence: [3, 4],
    });
    await store.feedback.addFeedback({
      stateKey: 'D9:2.1:2.2:y',
      channel: 'D9',
      threadTs: '2.1',
      messageTs: '2.2',
      user: 'U9',
      value: 'helpful',
      question: 'What is my private salary band?',
      answer: 'B4',
      evidence: [3],
    });
    db.close();
    // no context named: refused, with the way to list everything
    const bare = await ragask(['feedback']);
    expect(bare.code).toBe(1);
    expect(bare.err).toMatch(/--all/);
    const all = await ragask(['feedback', '--all']);
    expect(all.out).toMatch(
      /2 feedback entries from every channel and DM \(admin listing\) \(1 helpful, 1 not helpful\)/,
    );
    expect(all.out).toContain('Q: Who leads Falcon?');
    const json = JSON.parse((await ragask(['feedback', '--all', '--json'])).out) as {
      value: string;
      answer: string;
      evidence: number[];
    }[];
    expect(json.find((r) => r.answer === 'Mirela Ostrowski')).toMatchObject({ value: 'not_helpful', evidence: [3, 4] });
    // a channel sees what was given in it, never a DM's question
    const c1 = await ragask(['feedback', '--channel', 'C1']);
    expect(c1.out).toContain('Who leads Falcon?');
    expect(c1.out).not.toContain('salary');
    expect(JSON.parse((await ragask(['feedback', '--json', '--channel', 'CGEN'])).out)).toEqual([]);
    // a user sees what they gave in their DMs, not what others gave anywhere
    expect((await ragask(['feedback', '--user', 'U9'])).out).toContain('salary');
    const u1 = await ragask(['feedback', '--user', 'U1']);
    expect(u1.out).not.toContain('salary');
    expect(u1.out).not.toContain('Who leads Falcon?');
    // listed for a context, an entry whose evidence that context may not see is left out
    const chunk3Doc = new Database(path.join(dir, 'data', 'ragask.db'))
      .prepare('SELECT doc_id FROM chunks WHERE id = 3')
      .get() as { doc_id: number };
    await ragask([
      'sources',
      'set',
      (
        new Database(path.join(dir, 'data', 'ragask.db'))
          .prepare('SELECT source FROM documents WHERE id = ?')
          .get(chunk3Doc.doc_id) as { source: string }
      ).source,
      '--scope',
      'channel:CFIN',
    ]);
    expect(JSON.parse((await ragask(['feedback', '--json', '--channel', 'C1'])).out)).toEqual([]);
    await ragask(['sources', 'set', SAMPLE_DIR, '--scope', 'public']);
  });

  it('serve names each missing Slack setting and how to create the app', async () => {
    const r = await ragask(['serve'], { SLACK_BOT_TOKEN: '', SLACK_APP_TOKEN: '' });
    expect(r.code).toBe(1);
    const lines = r.err.trim().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^ragask: SLACK_BOT_TOKEN: missing; .*manifest\.yml/);
    expect(lines[1]).toMatch(/^ragask: SLACK_APP_TOKEN: missing; .*RAGASK_SLACK_MODE=http/);
    const bad = await ragask(['serve'], { SLACK_BOT_TOKEN: 'xoxp-user-token-not-a-bot-token-123' });
    // …while the other commands are not stopped by it
    expect((await ragask(['stats'], { SLACK_BOT_TOKEN: 'xoxp-user-token-not-a-bot-token-123' })).code).toBe(0);
    expect(bad.err).toMatch(
      /SLACK_BOT_TOKEN: must be a bot token starting with xoxb- \(got a value of \d+ characters\)/,
    );
    expect(bad.err).not.toContain('xoxp-user-token');
  });

  it('ingest --scope and sources set/list control who sees what', async () => {
    const docs = path.join(dir, 'scoped');
    fs.mkdirSync(docs);
    fs.writeFileSync(path.join(docs, 'secret.md'), '# Payroll\n\nThe payroll run happens on the 25th of each month.\n');
    expect((await ragask(['ingest', docs, '--scope', 'channel:CHR'])).code).toBe(0);
    const list = JSON.parse((await ragask(['sources', 'list', '--json'])).out) as { source: string; scope: string }[];
    expect(list.find((d) => d.source.endsWith('secret.md'))!.scope).toBe('channel:CHR');
    const inGeneral = await ragask(['ask', 'When does the payroll run happen?', '--channel', 'CGEN', '--json']);
    expect(inGeneral.out).not.toContain('payroll run happens');
    const inHr = await ragask(['ask', 'When does the payroll run happen?', '--channel', 'CHR', '--json']);
    expect(inHr.out).toContain('payroll run happens');
    expect((await ragask(['sources', 'set', path.join(docs, '*.md'), '--scope', 'user:UBOSS'])).out).toMatch(
      /1 source\(s\) now user:UBOSS/,
    );
    expect(
      (await ragask(['ask', 'When does the payroll run happen?', '--channel', 'CHR', '--json'])).out,
    ).not.toContain('payroll run happens');
    expect(
      (await ragask(['ask', 'When does the payroll run happen?', '--user', 'UBOSS', '--dm', '--json'])).out,
    ).toContain('payroll run happens');
    // re-ingesting without --scope keeps the scope
    fs.appendFileSync(path.join(docs, 'secret.md'), '\nBonuses are paid in March.\n');
    await ragask(['ingest', docs]);
    const again = JSON.parse((await ragask(['sources', 'list', '--json'])).out) as { source: string; scope: string }[];
    expect(again.find((d) => d.source.endsWith('secret.md'))!.scope).toBe('user:UBOSS');
    const bad = await ragask(['sources', 'set', path.join(docs, 'nothing-here.md'), '--scope', 'public']);
    expect(bad.err).toMatch(/no stored source matches/);
    expect((await ragask(['ingest', docs, '--scope', 'everyone'])).err).toMatch(
      /--scope: must be public, channel:<id>/,
    );
  });

  it('sources hide, demote and restore act on every answer at once, each logged with who did it', async () => {
    const docs = path.join(dir, 'flagged');
    fs.mkdirSync(docs);
    const stale = path.join(docs, 'vpn-old.md');
    const fresh = path.join(docs, 'vpn-new.md');
    fs.writeFileSync(stale, '# VPN gateway\n\nThe VPN gateway host is vpn-a.example.net.\n');
    // scores about 1.05 and 0.87 here: demoted (× 0.7) the old page falls to about 0.73, a margin both ways
    fs.writeFileSync(fresh, '# Remote access\n\nThe VPN gateway host moved to vpn-b.example.net in 2025.\n');
    expect((await ragask(['ingest', docs])).code).toBe(0);
    const cited = async () => {
      const r = JSON.parse((await ragask(['ask', 'Which host is the VPN gateway?', '--json'])).out) as {
        evidence: { citation: { source: string } }[];
      };
      return r.evidence.map((e) => e.citation.source);
    };
    const rankOf = (sources: string[], file: string) => sources.findIndex((s) => s.startsWith(file));
    const before = await cited();
    // the old page answers the question best until it is acted on
    expect(rankOf(before, stale)).toBeGreaterThanOrEqual(0);
    expect(rankOf(before, stale)).toBeLessThan(rankOf(before, fresh));

    expect((await ragask(['sources', 'hide', stale, '--by', 'U_ADMIN'])).out).toMatch(
      /1 source\(s\) hidden \(by U_ADMIN\)/,
    );
    const hidden = await cited();
    expect(rankOf(hidden, stale)).toBe(-1);
    expect(rankOf(hidden, fresh)).toBeGreaterThanOrEqual(0);
    // hidden, not deleted: still listed, with who hid it
    const list = JSON.parse((await ragask(['sources', 'list', '--json'])).out) as {
      source: string;
      flag: { action: string; by: string } | null;
    }[];
    expect(list.find((d) => d.source === stale)!.flag).toMatchObject({ action: 'hide', by: 'U_ADMIN' });

    await ragask(['sources', 'restore', stale, '--by', 'U_ADMIN']);
    const restored = await cited();
    expect(rankOf(restored, stale)).toBe(rankOf(before, stale));

    // demoted: still found, ranked below the other VPN page
    await ragask(['sources', 'demote', stale, '--by', 'U_OPS']);
    const demoted = await cited();
    expect(rankOf(demoted, stale)).toBeGreaterThan(rankOf(demoted, fresh));
    expect(rankOf(demoted, stale)).toBeGreaterThanOrEqual(0);

    const text = (await ragask(['sources', 'list'])).out;
    expect(text).toMatch(/vpn-old\.md.*demoted by U_OPS/);
    expect(text).toMatch(/recent admin actions:\n.*demote .*vpn-old\.md\s+by U_OPS\n.*restore .*by U_ADMIN\n.*hide /);
    await ragask(['sources', 'restore', stale]);
    expect((await ragask(['sources', 'hide', path.join(docs, 'nothing.md')])).err).toMatch(/no stored source matches/);
  });

  it('doctor passes on a healthy store and names the fix for a damaged one', async () => {
    const ok = await ragask(['doctor']);
    expect(ok.out).toMatch(/✓ config/);
    expect(ok.out).toMatch(/✓ model all-MiniLM-L6-v2 \(int8\): \d+ files match their sha256/);
    expect(ok.out).toMatch(/✓ store: .*integrity ok/);
    expect(ok.out).toMatch(/✓ index ↔ store: index loads/);
    expect(ok.code).toBe(0);
    // a damaged index: reported, and rebuilt on the next open
    fs.appendFileSync(path.join(dir, 'data', 'index.hnsw'), Buffer.alloc(64, 7));
    const damaged = await ragask(['doctor']);
    expect(damaged.out).toMatch(
      /index ↔ store: index file does not match its sidecar.*rebuilt from SQLite on the next start/,
    );
    await ragask(['stats']);
    expect((await ragask(['doctor'])).out).toMatch(/✓ index ↔ store/);
    // a foreign database file: one line with the recovery
    const foreign = path.join(dir, 'foreign');
    fs.mkdirSync(foreign);
    fs.writeFileSync(path.join(foreign, 'ragask.db'), 'PK\u0003\u0004 this is a zip file, not a store');
    const bad = await ragask(['doctor', '--data-dir', foreign]);
    expect(bad.code).toBe(1);
    expect(bad.out).toMatch(/✗ store: .*not a SQLite database.*\n\s+fix: move the file away and re-ingest/);
    const stats = await ragask(['stats', '--data-dir', foreign]);
    expect(stats.err.trim().split('\n')).toHaveLength(1);
    expect(stats.err).toMatch(/restore it from a backup, or move it away and run `ragask ingest/);
  });

  it('doctor checks the writer: its endpoint, its model and a round trip, each in one line, with the fix', async () => {
    expect((await ragask(['doctor'])).out).toMatch(/✓ writer: not configured \(RAGASK_WRITER_URL empty\)/);
    const llm = new FakeLlm([{ reply: 'OK' }]);
    await llm.start();
    try {
      const env = {
        RAGASK_WRITER_URL: llm.url,
        RAGASK_WRITER_MODEL: 'stand-in-model',
        RAGASK_WRITER_API_KEY: 'sk-doc-9',
      };
      const ok = (await ragask(['doctor'], env)).out;
      expect(ok).toMatch(/✓ writer endpoint: http:\/\/127\.0\.0\.1:\d+\/v1 answers \(1 model\(s\)\)/);
      expect(ok).toMatch(/✓ writer model: stand-in-model is served/);
      expect(ok).toMatch(/✓ writer round trip: answered in \d+ ms/);
      expect(ok).toContain('✓ writer checker: all-MiniLM-L6-v2 judges support at cosine ≥ 0.6');
      expect(ok).not.toContain('sk-doc-9');
      const wrong = await ragask(['doctor'], { ...env, RAGASK_WRITER_MODEL: 'gpt-none' });
      expect(wrong.out).toMatch(
        /✗ writer model: gpt-none is not among the endpoint's models \(stand-in-model\)\n\s+fix: set RAGASK_WRITER_MODEL/,
      );
      expect(wrong.code).toBe(1);
    } finally {
      await llm.stop();
    }
    const down = await ragask(['doctor'], { RAGASK_WRITER_URL: 'http://127.0.0.1:9/v1', RAGASK_WRITER_MODEL: 'm' });
    expect(down.out).toMatch(/✗ writer endpoint: http:\/\/127\.0\.0\.1:9\/v1: .*\n\s+fix: check RAGASK_WRITER_URL/);
  }, 60_000);

  it('runs as the installed binary', () => {
    const out = execFileSync(process.execPath, [path.join(ROOT, 'bin', 'ragask.js'), '--help'], { encoding: 'utf8' });
    expect(out).toMatch(/Usage: ragask/);
    for (const cmd of [
      'demo',
      'ingest',
      'ask',
      'stats',
      'eval',
      'reindex',
      'bench',
      'serve',
      'feedback',
      'sources',
      'doctor',
    ])
      expect(out).toContain(cmd);
  });
});
