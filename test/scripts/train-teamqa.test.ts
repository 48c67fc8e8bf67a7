import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, tempDir } from '../helpers.js';
import { runCli } from '../cli/run-cli.js';

/**
 * The teamqa training pipeline (scripts/train-teamqa.mjs's steps) on a tiny teamqa-shaped set made
 * for this test (test/fixtures/teamqa-tiny: two pages, five questions, verify.py-clean): the rows the
 * engine writes, their labels, and a reader trained from them end to end.
 */
const TINY = path.join(ROOT, 'test', 'fixtures', 'teamqa-tiny');
let dir: string;
let rowsFile: string;
let candidatesFile: string;

interface Row {
  id: string;
  passages: { title: string; text: string }[];
  lines: { passage: number; start: number; end: number; text: string }[];
}
interface Labelled {
  id: string;
  views: { kind: string; placed: boolean; spans: { text: string; line: string }[] }[];
}

const readJsonl = <T>(text: string): T[] =>
  text
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as T);

beforeAll(async () => {
  dir = tempDir('ragask-teamqa-');
  rowsFile = path.join(dir, 'rows.jsonl');
  candidatesFile = path.join(dir, 'candidates.jsonl');
  const r = await runCli(
    path.join(dir, 'data'),
    ['rows', '--dataset', TINY, '--out', rowsFile, '--candidates', candidatesFile],
    { RAGASK_CACHE_DIR: path.join(dir, 'cache') },
  );
  expect(r.code, r.err).toBe(0);
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('ragask rows', () => {
  it('writes every question with the passages its reader read and lines that point into them', () => {
    const rows = readJsonl<Row>(fs.readFileSync(rowsFile, 'utf8'));
    expect(rows.map((r) => r.id)).toEqual(['tt-001', 'tt-002', 'tt-003', 'tt-004', 'tt-005']);
    const howTo = rows[2]!;
    const line = howTo.lines.find((l) => l.text.includes('queuectl flush --all'));
    expect(line).toBeDefined();
    // a line's range is its place in its passage's text
    expect(howTo.passages[line!.passage]!.text.slice(line!.start, line!.end)).toContain('queuectl flush --all');
  });
});

interface Searches {
  dataset: string;
  id: string;
  searches: { query: string; candidates: { title: string; text: string; score: number; rerank: number }[] }[];
}

describe("ragask rows --candidates (a chunk ranker's rows)", () => {
  it("writes each question's searches with their reranked pools, the question's own search first", () => {
    const lines = readJsonl<Searches>(fs.readFileSync(candidatesFile, 'utf8'));
    expect(lines.map((l) => [l.dataset, l.id])).toEqual([
      ['teamqa-tiny', 'tt-001'],
      ['teamqa-tiny', 'tt-002'],
      ['teamqa-tiny', 'tt-003'],
      ['teamqa-tiny', 'tt-004'],
      ['teamqa-tiny', 'tt-005'],
    ]);
    const howTo = lines[2]!.searches[0]!;
    expect(howTo.query).toBe("the remote side is back up, how do I make it send everything that's waiting right now?");
    expect(howTo.candidates.some((c) => c.text.includes('queuectl flush --all'))).toBe(true);
  });

  it('labels the chunks that hold an evidence line (scripts/train_chunk_ranker.py)', () => {
    const code = [
      'import json, sys',
      `sys.path.insert(0, ${JSON.stringify(path.join(ROOT, 'scripts'))})`,
      'from train_chunk_ranker import content_terms, label',
      'ev = [content_terms("To push out every deferred message at once, run queuectl flush --all.")]',
      'mk = lambda text: {"title": "Queue daemon", "headings": ["Flushing"], "text": text}',
      'print(json.dumps([label(ev, ["queuectl flush --all"], mk(t)) for t in [',
      '  "To push out every deferred message at once, run queuectl flush --all.",',
      '  "To push out every deferred message at once, run the flush command.",',
      '  "queuectl hold --domain NAME keeps a domain\'s mail."]]))',
    ].join('\n');
    expect(JSON.parse(execFileSync('python3', ['-c', code], { encoding: 'utf8' }))).toEqual([1, 0, 0]);
  });
});

describe("ragask rows --questions (questions written over a set's own documents)", () => {
  it("asks them of the set's documents on the set's own store, under the set's name", async () => {
    const extra = path.join(dir, 'extra.jsonl');
    fs.writeFileSync(
      extra,
      `${JSON.stringify({
        id: 'x-tt-001',
        question: 'how do I keep all mail for one domain without losing any?',
        answers: ['queuectl hold --domain NAME'],
        supporting: ['corpus/queue-daemon.md'],
        hops: 1,
        type: 'procedure',
        evidence: ['To hold all mail for one domain without losing it, run queuectl hold --domain NAME.'],
      })}\n`,
    );
    const cache = path.join(dir, 'cache', 'eval');
    const storesBefore = fs.readdirSync(cache);
    const out = path.join(dir, 'extra-rows.jsonl');
    const r = await runCli(path.join(dir, 'data'), ['rows', '--dataset', TINY, '--questions', extra, '--out', out], {
      RAGASK_CACHE_DIR: path.join(dir, 'cache'),
    });
    expect(r.code, r.err).toBe(0);
    const rows = readJsonl<Row & { dataset: string; evidence: string[] }>(fs.readFileSync(out, 'utf8'));
    expect(rows.map((x) => [x.dataset, x.id, x.evidence])).toEqual([
      [
        'teamqa-tiny',
        'x-tt-001',
        ['To hold all mail for one domain without losing it, run queuectl hold --domain NAME.'],
      ],
    ]);
    expect(fs.readdirSync(cache)).toEqual(storesBefore);
  });

  it('names the option and what to do when the file is missing or there are several datasets', async () => {
    const env = { RAGASK_CACHE_DIR: path.join(dir, 'cache') };
    const missing = await runCli(
      path.join(dir, 'data'),
      ['rows', '--dataset', TINY, '--questions', path.join(dir, 'nope.jsonl'), '--out', path.join(dir, 'x.jsonl')],
      env,
    );
    expect(missing.code).not.toBe(0);
    expect(missing.err).toContain('--questions');
    expect(missing.err).toContain('no such file');
    const two = await runCli(
      path.join(dir, 'data'),
      ['rows', '--dataset', TINY, TINY, '--questions', rowsFile, '--out', path.join(dir, 'x.jsonl')],
      env,
    );
    expect(two.code).not.toBe(0);
    expect(two.err).toContain('exactly one --dataset');
  });
});

describe('the rows, labelled (scripts/teamqa_rows.py)', () => {
  const labelled = () =>
    readJsonl<Labelled>(
      execFileSync('python3', [path.join(ROOT, 'scripts', 'teamqa_rows.py'), rowsFile], { encoding: 'utf8' }),
    );

  it("marks the answer's span inside the evidence line, and only there", () => {
    const byId = new Map(labelled().map((l) => [l.id, l]));
    const value = byId.get('tt-001')!.views[0]!;
    expect(value.kind).toBe('span');
    expect(value.spans.map((s) => s.text)).toEqual(['3d']);
    expect(value.spans[0]!.line).toContain('how long a message may stay deferred before it is returned to its sender');
    // "Default: 45m" and "Default: 12" stand in the same passage and are not taught
    expect(byId.get('tt-002')!.views[0]!.spans.map((s) => s.text)).toEqual(['relay_slots']);
    expect(byId.get('tt-003')!.views[0]!.spans.map((s) => s.text)).toEqual(['queuectl flush --all']);
  });

  it('teaches an unanswerable question that nothing answers it', () => {
    const none = labelled().find((l) => l.id === 'tt-005')!;
    expect(none.views.map((v) => v.kind)).toEqual(['unanswerable']);
    expect(none.views[0]!.spans).toEqual([]);
  });
});

describe('scripts/train_teamqa.py end to end', () => {
  it('trains a reader from the rows and packages it for the engine', { timeout: 900_000 }, () => {
    const upstream = path.join(dir, 'upstream');
    // the same pinned files and venv as `npm run models` (the venv is made once, about a minute)
    const fetched = spawnSync(
      process.execPath,
      [path.join(ROOT, 'scripts', 'fetch-models.mjs'), `--upstream-to=${upstream}`],
      {
        encoding: 'utf8',
      },
    );
    expect(fetched.status, fetched.stderr).toBe(0);
    const python = fetched.stdout.trim().split('\n').pop()!;
    const pkg = path.join(dir, 'models', 'reader-tiny');
    // gzipped, as rows travel to a lent GPU machine (its copy of the tree is capped at 64 MiB)
    const gz = path.join(dir, 'rows.jsonl.gz');
    fs.writeFileSync(gz, gzipSync(fs.readFileSync(rowsFile)));
    const args = [path.join(ROOT, 'scripts', 'train_teamqa.py'), '--rows', gz, '--base', upstream];
    args.push('--data', path.join(dir, 'no-squad'), '--squad', '0', '--batch', '4', '--out', path.join(dir, 'train'));
    args.push('--package', pkg, '--threads', '1');
    const run = spawnSync(python, args, { encoding: 'utf8' });
    expect(run.status, run.stderr.slice(-2000)).toBe(0);
    const report = JSON.parse(fs.readFileSync(path.join(dir, 'train', 'report.json'), 'utf8'));
    // four answerable rows read once each, one unanswerable: windows were built and trained on
    expect(report.teamqa.rows).toBe(5);
    expect(report.teamqa.unanswerable).toBe(1);
    expect(report.steps).toBeGreaterThanOrEqual(1);
    // --device auto: this machine has no GPU torch can see
    expect(report.device).toBe('cpu');
    const manifest = JSON.parse(fs.readFileSync(path.join(pkg, 'ragask-model.json'), 'utf8'));
    expect(manifest.kind).toBe('reader');
    const sha = createHash('sha256')
      .update(fs.readFileSync(path.join(pkg, 'model.int8.onnx')))
      .digest('hex');
    expect(manifest.sha256['model.int8.onnx']).toBe(sha);
    // asked for a GPU where there is none: one line naming the option and what to do, before any work
    const cuda = spawnSync(python, [...args, '--device', 'cuda'], { encoding: 'utf8' });
    expect(cuda.status).toBe(1);
    expect(cuda.stderr.trim()).toBe(
      'train_teamqa: --device cuda: torch sees no CUDA device here; use --device cpu (or auto)',
    );
  });
});

describe('scripts/train_answer_type.py (the learned answer type, against the cue lists)', () => {
  it('judges each set by a fit that never saw it, and the cue lists as they asked', { timeout: 300_000 }, () => {
    const fetched = spawnSync(
      process.execPath,
      [path.join(ROOT, 'scripts', 'fetch-models.mjs'), `--upstream-to=${path.join(dir, 'upstream')}`],
      { encoding: 'utf8' },
    );
    expect(fetched.status, fetched.stderr).toBe(0);
    const python = fetched.stdout.trim().split('\n').pop()!;
    // two sets of four questions, one kind each, told apart by their words and by a vector per kind;
    // the cue lists (`rule`) ask for a number every time
    const kinds = [
      { q: 'how many retries are allowed', fits: { number: 1, identifier: 0, path: 0, command: 0 }, vec: [1, 0, 0] },
      { q: 'which file holds the pid', fits: { number: -1, identifier: 1, path: 1, command: 1 }, vec: [0, 1, 0] },
      { q: 'which option turns it off', fits: { number: -1, identifier: 1, path: 0, command: 1 }, vec: [0, 0, 1] },
      { q: 'why does the job stop', fits: { number: -1, identifier: -1, path: -1, command: -1 }, vec: [0, 0, 0] },
    ];
    const rows = ['alpha', 'beta'].flatMap((set) =>
      kinds.map((k, i) => ({ set, id: `${set}-${i}`, type: 'factoid', question: k.q, rule: 'number', ...k })),
    );
    rows.push({ ...rows[0]!, id: 'beta-x', set: 'gamma', report: true } as (typeof rows)[number]);
    const file = path.join(dir, 'answer-type-rows.jsonl');
    fs.writeFileSync(file, rows.map((r) => JSON.stringify(r)).join('\n'));
    const report = path.join(dir, 'answer-type.md');
    const run = spawnSync(
      python,
      [path.join(ROOT, 'scripts', 'train_answer_type.py'), '--rows', file, '--report', report, '--min-count', '1'],
      { encoding: 'utf8' },
    );
    expect(run.status, run.stderr.slice(-2000)).toBe(0);
    const table = fs.readFileSync(report, 'utf8');
    // the cue lists asked for a number: right for the first question of each set, a misfit for the other three
    // that have a kind; each learner, fitted on the other set, asks for every kind right
    expect(table).toContain('| alpha | 4 | 0.250 (+1 / -3) | 1.000 (+3 / -0) | 1.000 (+3 / -0) |');
    expect(table).toContain('| **pooled** | 8 | 0.250 (+2 / -6) | 1.000 (+6 / -0) | 1.000 (+6 / -0) |');
    // a set never trained on is only predicted, by the fit on every set
    expect(table).toContain('| gamma | 1 | 1.000 (+1 / -0) | 1.000 (+1 / -0) | 1.000 (+1 / -0) |');
  });
});

describe("scripts/distil.py (a teacher's logits distilled into the reader)", () => {
  it('adds KL(teacher || student) at temperature T, T² scaled, to the labels’ loss', { timeout: 120_000 }, () => {
    const python = path.join(ROOT, '.venv-export', 'bin', 'python');
    const code = [
      'import json, math, sys, torch, numpy as np',
      `sys.path.insert(0, ${JSON.stringify(path.join(ROOT, 'scripts'))})`,
      'import train_reader as tr, distil',
      't = torch.tensor([[math.log(3.0), 0.0]]); s = torch.zeros(1, 2)',
      'soft = [round(distil._soft(s, t, T).item(), 5) for T in (1.0, 2.0)]',
      'torch.manual_seed(0)',
      'from transformers import BertConfig, BertModel',
      'cfg = BertConfig(vocab_size=40, hidden_size=8, num_hidden_layers=1, num_attention_heads=2, intermediate_size=16)',
      'm = tr.Reader(BertModel(cfg, add_pooling_layer=False)).eval()',
      'f = lambda ids, label, s, e: {"ids": ids, "types": [0] * len(ids), "span_ok": [False, True, True, True, True][:len(ids)], "label": label, "start": s, "end": e}',
      'feats = [f([1, 5, 6, 7, 2], tr.SPAN, 2, 3), f([1, 8, 9, 2], tr.NONE, 0, 0)]',
      'distil.teacher_logits(m, feats, tr.torch_runner)',
      'with torch.no_grad():',
      '    own = tr.loss_of(m, tr.collate(feats, [0, 1])).item()',
      '    hard = distil.distil_loss(m, feats, [0, 1], alpha=0.0).item()',
      '    itself = distil.distil_loss(m, feats, [0, 1], alpha=1.0).item()',
      '    del feats[1]["t"]', // a window the teacher did not read (SQuAD's, without --distil-squad)
      '    mixed = distil.distil_loss(m, feats, [0, 1], alpha=0.5).item()',
      '    alone = distil.distil_loss(m, feats, [1], alpha=0.5).item()',
      '    own1 = tr.loss_of(m, tr.collate(feats, [1])).item()',
      'print(json.dumps({"soft": soft, "hard_is_own": abs(hard - own) < 1e-5, "itself": round(abs(itself), 3),',
      '  "mixed": round(mixed / own, 3), "alone": round(alone / own1, 3)}))',
    ].join('\n');
    const out = JSON.parse(execFileSync(python, ['-c', code], { encoding: 'utf8' }).trim().split('\n').pop()!);
    // p = (0.75, 0.25) against (0.5, 0.5): 0.75 ln 1.5 + 0.25 ln 0.5; at T = 2, (0.634, 0.366) and x4
    expect(out.soft).toEqual([0.13081, 0.14536]);
    // alpha 0 is the reader's own loss; a student that is its own teacher (up to fp16) adds nothing
    expect(out.hard_is_own).toBe(true);
    expect(out.itself).toBe(0);
    // without the teacher's logits a window is taught by its labels alone, at the labels' share
    expect(out.mixed).toBe(0.5);
    expect(out.alone).toBe(0.5);
  });
});
