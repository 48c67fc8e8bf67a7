import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LINE_FEATURES } from '../../src/engine/answer/lines.js';
import { tempDir } from '../helpers.js';
import { runCli } from './run-cli.js';

let dir: string;
let dump: string;

/** A line whose only signal is its span score (the first feature); the rest are constant. */
const line = (span: number, y: number) => ({
  x: LINE_FEATURES.map((_, i) => (i === 0 ? span : 0.5)),
  y,
  text: `line ${span}`,
});

/** Questions of a set: the line with the higher span score holds the answer, or (inverted) the lower. */
function questions(dataset: string, n: number, inverted = false) {
  return Array.from({ length: n }, (_, i) => ({
    dataset,
    id: `${dataset}-${i}`,
    question: `question ${i}`,
    shownHolds: [false, true],
    lines: [line(4 + (i % 3), inverted ? 0 : 1), line(-4 - (i % 2), inverted ? 1 : 0), line(0, 0)],
  }));
}

beforeAll(() => {
  dir = tempDir();
  dump = path.join(dir, 'lines.jsonl');
  const all = [
    ...questions('alpha', 8),
    ...questions('beta', 8),
    ...questions('gamma', 8),
    ...questions('noise', 40, true),
  ];
  fs.writeFileSync(dump, `${all.map((q) => JSON.stringify(q)).join('\n')}\n`);
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('calibrate --lines --from-dump', () => {
  it('fits and judges the named sets from a dump, leave one set out, without running the engine', async () => {
    const sets = ['alpha', 'beta', 'gamma'].flatMap((s) => ['--dataset', path.join(dir, s)]);
    const r = await runCli(path.join(dir, 'data'), ['calibrate', '--lines', '--from-dump', dump, ...sets]);
    expect(r.code).toBe(0);
    const held = r.out.split('\n').filter((l) => /^ {2}(alpha|beta|gamma|noise) /.test(l));
    // the set left out is ranked by a fit on the other two: the higher span score leads every time;
    // the inverted "noise" set, not named, is neither fitted on nor reported
    expect(held.map((l) => l.trim().split(/\s+/).slice(0, 4).join(' '))).toEqual([
      'alpha 8 ranked@1 1.000',
      'beta 8 ranked@1 1.000',
      'gamma 8 ranked@1 1.000',
    ]);
  });

  it('names a set missing from the dump, and refuses a dump without --lines, in one line each', async () => {
    const missing = await runCli(path.join(dir, 'data'), [
      'calibrate',
      '--lines',
      '--from-dump',
      dump,
      '--dataset',
      path.join(dir, 'delta'),
    ]);
    expect(missing.code).not.toBe(0);
    expect(missing.err.trim()).toBe(`ragask: --from-dump: no questions of delta in ${dump}`);
    const noLines = await runCli(path.join(dir, 'data'), ['calibrate', '--from-dump', dump, '--dataset', 'alpha']);
    expect(noLines.code).not.toBe(0);
    expect(noLines.err.trim()).toBe('ragask: --from-dump reads line dumps: use it with --lines');
  });
});
