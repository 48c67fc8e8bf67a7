import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openCore, type Core } from '../../src/core.js';
import { loadDataset } from '../../src/eval/dataset.js';
import { allSupportAt, containsAnswer, normalizeAnswer, percentile, recallAt } from '../../src/eval/metrics.js';
import { multiHopRanker, singleHopRanker } from '../../src/eval/rankers.js';
import { coherenceStats, runEval, type Ranker } from '../../src/eval/run.js';
import type { ShownReply } from '../../src/eval/visible.js';
import { clickStats, usefulSweep, type ClickLabels, type StopCheck } from '../../src/eval/stops.js';
import { ingest } from '../../src/ingest/ingest.js';
import { SAMPLE_DIR, tempDir, testConfig } from '../helpers.js';
import { formatReport } from '../../src/eval/format.js';

describe('metrics', () => {
  it('computes recall@k and all-support@k over passages', () => {
    expect(recallAt(['a', 'x', 'b'], ['a', 'b'], 2)).toBe(0.5);
    expect(recallAt(['a', 'x', 'b'], ['a', 'b'], 3)).toBe(1);
    expect(allSupportAt(['a', 'x', 'b'], ['a', 'b'], 2)).toBe(0);
    expect(allSupportAt(['a', 'x', 'b'], ['a', 'b'], 3)).toBe(1);
  });

  it('normalises answers (case, articles, punctuation, accents, minus signs) and matches whole words', () => {
    expect(normalizeAnswer('The Gdańsk  Office!')).toBe('gdansk office');
    expect(containsAnswer('Offset: +0.35 °C at −20 °C', ['+0.35 °C'])).toBe(true);
    expect(containsAnswer('The office is in Gdańsk.', ['Gdansk'])).toBe(true);
    expect(containsAnswer('Released in 20111', ['2011'])).toBe(false);
  });

  it('takes nearest-rank percentiles', () => {
    expect(percentile([5, 1, 3, 2, 4], 50)).toBe(3);
    expect(percentile([1, 2, 3, 4, 100], 95)).toBe(100);
  });
});

describe('eval harness on a tiny dataset made here', () => {
  let dir: string;
  let core: Core;
  beforeAll(async () => {
    dir = tempDir();
    const ds = path.join(dir, 'tiny');
    fs.mkdirSync(ds);
    const corpus = [
      {
        id: 'p1',
        title: 'Zorblat Corporation',
        text: 'Zorblat Corporation is a toy maker founded by Ilse Varga in 1961.',
      },
      { id: 'p2', title: 'Ilse Varga', text: 'Ilse Varga was a Hungarian engineer born in the town of Kecskemét.' },
      { id: 'p3', title: 'Kecskemét', text: 'Kecskemét is a city in central Hungary known for its apricot brandy.' },
      { id: 'p4', title: 'Apricot brandy', text: 'Apricot brandy is distilled from fermented apricots.' },
      { id: 'p5', title: 'Lake Balaton', text: 'Lake Balaton is the largest lake in Central Europe.' },
      { id: 'p6', title: 'Toy trains', text: 'Toy trains were popular gifts in the 1960s.' },
    ];
    fs.writeFileSync(path.join(ds, 'corpus.jsonl'), corpus.map((c) => JSON.stringify(c)).join('\n'));
    const questions = [
      {
        id: 'q1',
        question: 'In which town was the founder of Zorblat Corporation born?',
        answers: ['Kecskemét'],
        supporting: ['p1', 'p2'],
        hops: 2,
      },
      {
        id: 'q2',
        question: 'What is the largest lake in Central Europe?',
        answers: ['Lake Balaton'],
        supporting: ['p5'],
        hops: 1,
      },
    ];
    fs.writeFileSync(path.join(ds, 'questions.jsonl'), questions.map((q) => JSON.stringify(q)).join('\n'));
    const config = testConfig(path.join(dir, 'store'), { RAGASK_QUERY_CACHE_TTL_S: 0 });
    core = await openCore(config);
    await ingest({ store: core.store, encoder: core.encoder, config }, [path.join(ds, 'corpus.jsonl')]);
  });
  afterAll(async () => {
    await core.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('reports every mode with recall and all-support at each k, answer-in-evidence, hops and latency', async () => {
    const ds = loadDataset(path.join(dir, 'tiny'));
    expect(ds.kind).toBe('jsonl');
    const rankers: Record<string, Ranker> = {
      bm25: singleHopRanker(core.retriever, ds, 'bm25'),
      hybrid: singleHopRanker(core.retriever, ds, 'hybrid'),
      multihop: multiHopRanker(core.engine, ds),
    };
    const r = await runEval(ds, rankers, { modes: ['bm25', 'hybrid', 'multihop'], ks: [1, 3] });
    expect(r).toMatchObject({ dataset: 'tiny', questions: 2 });
    for (const mode of ['bm25', 'hybrid', 'multihop']) {
      const m = r.modes[mode]!;
      for (const key of [
        'recall@1',
        'all_support@1',
        'recall@3',
        'all_support@3',
        'answer_in_evidence@3',
        'mean_hops',
      ]) {
        expect(typeof m[key]).toBe('number');
      }
      expect((m['recall@3'] as number) >= (m['recall@1'] as number)).toBe(true);
      expect(m['recall@3']).toBeGreaterThanOrEqual(0);
      expect(m['recall@3']).toBeLessThanOrEqual(1);
      expect(m.latency_ms.p95).toBeGreaterThanOrEqual(m.latency_ms.p50);
    }
    expect(r.modes.bm25!.mean_hops).toBe(1);
    expect(r.modes.multihop!['all_support@3']).toBe(1);
    expect(r.modes.multihop!.mean_hops).toBeGreaterThanOrEqual(1);
    // the coherence checks of the chains are reported for multihop only, one per checked hop
    expect(r.modes.bm25!.coherence).toBeUndefined();
    const c = r.modes.multihop!.coherence!;
    expect(c.checks).toBeLessThanOrEqual(r.questions * r.modes.multihop!.mean_hops);
    expect(c.pass_rate).toBeGreaterThanOrEqual(0);
    expect(c.cosine_failures + c.gate_failures).toBe(Math.round(c.checks * (1 - c.pass_rate)));
  });

  it('counts coherence checks, their failures by kind, and the questions that stopped for a person', () => {
    const check = (cosine: number, directional: number, passed: boolean) => ({
      cosine,
      directional,
      passed,
      threshold: 0.75,
    });
    const stats = coherenceStats([
      {
        passages: [],
        snippets: [],
        hops: 3,
        coherence: { checks: [check(0.9, 0.3, true), check(0.6, 0.2, false)], stoppedForPerson: true },
      },
      {
        passages: [],
        snippets: [],
        hops: 2,
        coherence: { checks: [check(0.95, -0.1, false)], stoppedForPerson: true },
      },
      { passages: [], snippets: [], hops: 1, coherence: { checks: [], stoppedForPerson: false } },
    ])!;
    expect(stats).toEqual({
      checks: 3,
      pass_rate: 1 / 3,
      cosine_failures: 1,
      gate_failures: 1,
      median_cosine: 0.9,
      stopped_questions: 2,
    });
    expect(coherenceStats([{ passages: [], snippets: [], hops: 1 }])).toBeUndefined();
  });

  it('computes each figure from what the rankers return', async () => {
    const ds = loadDataset(path.join(dir, 'tiny'));
    // q1 gets p2 first then p1; q2 gets a wrong passage first, then p5
    const fixed: Ranker = async (q) =>
      q.id === 'q1'
        ? { passages: ['p2', 'p1', 'p6'], snippets: ['born in the town of Kecskemét', 'x', 'y'], hops: 2 }
        : { passages: ['p6', 'p5'], snippets: ['toy trains', 'the largest lake'], hops: 3 };
    const r = await runEval(ds, { hybrid: fixed }, { modes: ['hybrid'], ks: [1, 2] });
    const m = r.modes.hybrid!;
    expect(m['recall@1']).toBe(0.25);
    expect(m['all_support@1']).toBe(0);
    expect(m['recall@2']).toBe(1);
    expect(m['all_support@2']).toBe(1);
    expect(m['answer_in_evidence@3']).toBe(0.5);
    expect(m.mean_hops).toBe(2.5);
  });

  it('measures what a person sees: the first line, the first three, right and wrong short answers, stops, per type', async () => {
    const typed = path.join(dir, 'typed');
    fs.mkdirSync(typed, { recursive: true });
    fs.copyFileSync(path.join(dir, 'tiny', 'corpus.jsonl'), path.join(typed, 'corpus.jsonl'));
    const qs = [
      { id: 'a', question: 'Where was Ilse Varga born?', answers: ['Kecskemét'], supporting: ['p2'], type: 'factoid' },
      {
        id: 'b',
        question: 'What is the largest lake?',
        answers: ['Lake Balaton'],
        supporting: ['p5'],
        type: 'factoid',
      },
      { id: 'c', question: 'Who founded Zorblat?', answers: ['Ilse Varga'], supporting: ['p1'], type: 'bridge' },
      { id: 'd', question: 'When was Zorblat founded?', answers: ['1961'], supporting: ['p1'], type: 'bridge' },
    ];
    fs.writeFileSync(path.join(typed, 'questions.jsonl'), qs.map((q) => JSON.stringify(q)).join('\n'));
    const shown: Record<string, ShownReply> = {
      // right short answer, a little longer than the gold
      a: {
        value: 'the town of Kecskemét',
        lines: ['Ilse Varga was born in the town of Kecskemét.'],
        stoppedForPerson: false,
      },
      // no short answer; the gold stands in the second line only
      b: {
        value: null,
        lines: ['Toy trains were popular.', 'Lake Balaton is the largest lake in Central Europe.'],
        stoppedForPerson: true,
      },
      // a wrong short answer, the gold in the third line
      c: { value: 'Kecskemét', lines: ['x', 'y', 'Zorblat was founded by Ilse Varga.'], stoppedForPerson: false },
      // a number inside a longer number is not the answer
      d: { value: '19612', lines: ['founded in 19612'], stoppedForPerson: true },
    };
    const ranker: Ranker = async (q) => ({ passages: [], snippets: [], hops: 1, shown: shown[q.id]! });
    const r = await runEval(loadDataset(typed), { multihop: ranker }, { modes: ['multihop'], ks: [1] });
    const m = r.modes.multihop!;
    expect(m['visible@1']).toBe(0.25);
    expect(m['visible@3']).toBe(0.75);
    expect(m.answered_right).toBe(0.25);
    expect(m.wrong_answers).toBe(0.5);
    expect(m.wrong_of_given).toBeCloseTo(2 / 3, 9);
    expect(m.stopped_for_person).toBe(0.5);
    expect(m.by_type!.factoid).toMatchObject({
      questions: 2,
      'visible@1': 0.5,
      'visible@3': 1,
      answered_right: 0.5,
      wrong_answers: 0,
      stopped_for_person: 0.5,
    });
    expect(m.by_type!.bridge).toMatchObject({
      questions: 2,
      'visible@1': 0,
      'visible@3': 0.5,
      answered_right: 0,
      wrong_answers: 1,
      stopped_for_person: 0.5,
    });
    expect(formatReport(r, [1])).toMatch(/factoid \(2\)\s+0\.500\s+1\.000/);
  });

  it('loads unanswerable questions as they are and counts any short answer to one as wrong', async () => {
    const un = path.join(dir, 'unanswerable');
    fs.mkdirSync(un, { recursive: true });
    fs.copyFileSync(path.join(dir, 'tiny', 'corpus.jsonl'), path.join(un, 'corpus.jsonl'));
    const qs = [
      { id: 'a', question: 'Where was Ilse Varga born?', answers: ['Kecskemét'], supporting: ['p2'], type: 'factoid' },
      {
        id: 'u1',
        question: 'What is the phone number of Zorblat?',
        answers: [],
        supporting: [],
        hops: 0,
        type: 'unanswerable',
      },
      { id: 'u2', question: 'Who audits Zorblat?', answers: [], supporting: [], hops: 0, type: 'unanswerable' },
    ];
    fs.writeFileSync(path.join(un, 'questions.jsonl'), qs.map((q) => JSON.stringify(q)).join('\n'));
    const shown: Record<string, ShownReply> = {
      a: { value: 'Kecskemét', lines: ['Ilse Varga was born in Kecskemét.'], stoppedForPerson: false },
      // a short answer where the documents say nothing: wrong
      u1: { value: '555-0100', lines: ['Call 555-0100.'], stoppedForPerson: false },
      // "the documents do not say": no short answer
      u2: { value: null, lines: ['Zorblat was founded in 1961.'], stoppedForPerson: false },
    };
    const ranker: Ranker = async (q) => ({ passages: ['p2'], snippets: [], hops: 1, shown: shown[q.id]! });
    const r = await runEval(loadDataset(un), { multihop: ranker }, { modes: ['multihop'], ks: [1] });
    const m = r.modes.multihop!;
    // retrieval is measured where there is something to find
    expect(m['recall@1']).toBe(1);
    expect(m['visible@1']).toBe(1);
    expect(m.answered_right).toBe(1);
    expect(m.wrong_on_unanswerable).toBe(0.5);
    // one wrong short answer over all three questions
    expect(m.wrong_answers).toBeCloseTo(1 / 3, 9);
    expect(m.by_type!.unanswerable).toMatchObject({ questions: 2, wrong_answers: 0.5, wrong_on_unanswerable: 0.5 });
    expect(formatReport(r, [1])).toMatch(/wrong on unanswerable 0\.500/);
  });

  it('refuses a question with answers but no supporting passage, naming its line', () => {
    const bad = path.join(dir, 'bad-supporting');
    fs.mkdirSync(bad);
    fs.writeFileSync(
      path.join(bad, 'questions.jsonl'),
      '{"id": "a", "question": "ok?", "answers": ["x"], "supporting": []}\n',
    );
    expect(() => loadDataset(bad)).toThrow(/questions\.jsonl:1: "supporting" is empty but "answers" is not/);
  });

  it('measures hops worth a click: useful stops, right bridges, and what each useful threshold would do', () => {
    const stop = (answerGiven: boolean, p: number[], useful: boolean[]): StopCheck => ({
      answerGiven,
      p,
      useful,
      missing: 1,
      labels: p.map((_, i) => `entity ${i}`),
      via: p.map(() => 'title'),
    });
    const rows: { clicks: ClickLabels }[] = [
      // asked, and its first suggestion brings the missing passage
      {
        clicks: {
          bridgesRight: 1,
          bridges: 3,
          offeredUseful: [true, false, false],
          stop: stop(false, [0.4, 0.1, 0.05], [true, false, false]),
        },
      },
      // asked, only its second suggestion helps
      {
        clicks: {
          bridgesRight: 1,
          bridges: 2,
          offeredUseful: [false, true],
          stop: stop(false, [0.3, 0.2], [false, true]),
        },
      },
      // answered at the stop (a short answer stood): not asked, labelled for the sweep
      { clicks: { bridgesRight: 0, bridges: 0, offeredUseful: null, stop: stop(true, [0.9], [true]) } },
      // no stop at all; one bridge taken, wrong
      { clicks: { bridgesRight: 0, bridges: 1, offeredUseful: null, stop: null } },
    ];
    expect(clickStats(rows)).toEqual({ useful_stops: 0.5, any_useful_stops: 1, right_bridges: 2 / 6, bridges: 6 });
    expect(clickStats([{ clicks: { bridgesRight: 0, bridges: 0, offeredUseful: null, stop: null } }])).toMatchObject({
      useful_stops: null,
      right_bridges: null,
    });
    const sweep = usefulSweep(
      rows.flatMap((r) => (r.clicks.stop ? [r.clicks.stop] : [])),
      rows.length,
    );
    const at = (t: number) => sweep.find((x) => x.threshold === t)!;
    // a stop with a short answer never asks; the two others ask from 0 up to their best P
    expect(at(0)).toEqual({ threshold: 0, stopped: 0.5, useful: 0.5, any_useful: 1 });
    expect(at(0.3)).toEqual({ threshold: 0.3, stopped: 0.5, useful: 0.5, any_useful: 1 });
    expect(sweep.every((x) => x.threshold <= 0.3)).toBe(true);
  });

  it('reads a folder of documents whose supporting entries are paths (the sample corpus)', async () => {
    const ds = loadDataset(SAMPLE_DIR);
    expect(ds.kind).toBe('folder');
    expect(ds.passageOf(path.join(SAMPLE_DIR, 'projects', 'falcon.md'))).toBe('projects/falcon.md');
    expect(ds.questions.every((q) => q.supporting.every((p) => fs.existsSync(path.join(SAMPLE_DIR, p))))).toBe(true);
  });

  it("ingests only a set's corpus/ folder, never its README or VERIFY that quote the gold answers", () => {
    const set = path.join(dir, 'with-corpus');
    fs.mkdirSync(path.join(set, 'corpus', 'mod'), { recursive: true });
    fs.writeFileSync(path.join(set, 'corpus', 'mod', 'core.html'), '<p>Default: LimitRequestBody 1073741824</p>');
    fs.writeFileSync(path.join(set, 'VERIFY.md'), '**Gold answers:** `1073741824`\n');
    fs.writeFileSync(path.join(set, 'README.md'), '# the set\n');
    fs.writeFileSync(
      path.join(set, 'questions.jsonl'),
      '{"id": "a", "question": "max body?", "answers": ["1073741824"], "supporting": ["corpus/mod/core.html"]}\n',
    );
    const ds = loadDataset(set);
    expect(ds.inputs).toEqual([path.join(set, 'corpus')]);
    expect(ds.passageOf(path.join(set, 'corpus', 'mod', 'core.html'))).toBe('corpus/mod/core.html');
    // the store's key follows the documents and the questions, not the files that describe the set
    const key = ds.contentHash;
    fs.writeFileSync(path.join(set, 'README.md'), '# the set, reworded\n');
    expect(loadDataset(set).contentHash).toBe(key);
  });

  it('names the file and line of a bad questions.jsonl', () => {
    const bad = path.join(dir, 'bad');
    fs.mkdirSync(bad);
    fs.writeFileSync(
      path.join(bad, 'questions.jsonl'),
      '{"id": "a", "question": "ok?", "supporting": ["x"]}\n{"id": "b"}\n',
    );
    expect(() => loadDataset(bad)).toThrow(/questions\.jsonl:2: missing "question"/);
  });
});
