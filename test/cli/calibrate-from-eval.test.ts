import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers.js';
import { runCli } from './run-cli.js';

let dir: string;
const reports: string[] = [];

/** A reading whose span score and margin say how sure the reader was. */
const features = (sure: boolean) => ({
  kind: 'span',
  pAnswer: 0.9,
  pKind: 1,
  spanScore: sure ? 24 : -6,
  margin: sure ? 6 : 0,
  agreement: 0,
  conflict: false,
  retrieval: 0.7,
  rank: 0,
  hop: 1,
  weight: 1,
  confirmed: true,
  comparison: 'none',
  stopped: false,
  words: 1,
  expected: 'any',
  typeFit: 0,
  labelled: false,
  coverage: 0.5,
  corroborated: false,
});

/** A set's eval report: sure readings propose the gold answer, unsure ones another value. */
function report(name: string) {
  const row = (i: number, type: string, gold: string[], proposed: string, sure: boolean) => ({
    id: `${name}-${i}`,
    question: `question ${i}`,
    type,
    passages: [],
    ms: 100,
    hops: 1,
    gold,
    answer: { value: null, proposed, kind: 'span', p: 0.5, label: 'medium', features: features(sure) },
  });
  const rows = [
    ...Array.from({ length: 6 }, (_, i) => row(i, 'factoid', ['Kotlin'], 'Kotlin', true)),
    ...Array.from({ length: 5 }, (_, i) => row(6 + i, 'factoid', ['Kotlin'], 'Rust', false)),
    // an unanswerable question: whatever it proposes is wrong
    row(11, 'unanswerable', [], 'Go', false),
    // no gold and not unanswerable: not a sample
    row(12, 'factoid', [], 'Go', true),
  ];
  return { dataset: name, questions: rows.length, reader: 'reader-test', modes: {}, per_question: { multihop: rows } };
}

beforeAll(() => {
  dir = tempDir();
  for (const name of ['alpha', 'beta', 'gamma']) {
    const file = path.join(dir, `${name}.json`);
    fs.writeFileSync(file, JSON.stringify(report(name)));
    reports.push(file);
  }
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('calibrate --from-eval', () => {
  it("fits the confidence on eval reports' readings, judged leave one set out, without running the engine", async () => {
    const r = await runCli(path.join(dir, 'data'), ['calibrate', '--from-eval', ...reports, '--folds', '3']);
    expect(r.code).toBe(0);
    const [, held] = r.out.split('leave one set out');
    const rows = held!.split('\n').filter((l) => /^ {2}(alpha|beta|gamma):/.test(l));
    // 12 samples a set (the 13th has no gold); 6 right; a fit on the other two sets answers exactly the sure six
    expect(rows.map((l) => l.split(';').slice(0, 4).join(';'))).toEqual([
      '  alpha: 12 questions; proposals right 0.500; answered 0.500; right 0.500 F1 0.500 (declined = 0)',
      '  beta: 12 questions; proposals right 0.500; answered 0.500; right 0.500 F1 0.500 (declined = 0)',
      '  gamma: 12 questions; proposals right 0.500; answered 0.500; right 0.500 F1 0.500 (declined = 0)',
    ]);
  });

  it('reports on a set it never fits on, from its report', async () => {
    const r = await runCli(path.join(dir, 'data'), [
      'calibrate',
      '--from-eval',
      reports[0]!,
      reports[1]!,
      '--report-on',
      reports[2]!,
      '--folds',
      '3',
    ]);
    expect(r.code).toBe(0);
    const [, never] = r.out.split('never fitted on');
    expect(
      never!
        .split('\n')
        .find((l) => l.startsWith('  gamma:'))
        ?.split(';')
        .slice(0, 3)
        .join(';'),
    ).toBe('  gamma: 12 questions; proposals right 0.500; answered 0.500');
    expect(r.out.split('leave one set out')[1]!.split('never fitted on')[0]).not.toMatch(/gamma/);
  });

  it('names a report it cannot read, and refuses a run with nothing to fit on, in one line each', async () => {
    const bad = path.join(dir, 'bad.json');
    fs.writeFileSync(bad, JSON.stringify({ dataset: 'bad', questions: 0, modes: {} }));
    const r = await runCli(path.join(dir, 'data'), ['calibrate', '--from-eval', bad]);
    expect(r.code).not.toBe(0);
    expect(r.err.trim()).toBe(
      `ragask: --from-eval ${bad}: no per-question multihop rows; run \`ragask eval --modes multihop --json ${bad}\``,
    );
    const none = await runCli(path.join(dir, 'data'), ['calibrate']);
    expect(none.code).not.toBe(0);
    expect(none.err.trim()).toBe(
      'ragask: give the sets to fit on: --dataset <dir...>, or --from-eval <reports...> for the answer confidence',
    );
  });
});
