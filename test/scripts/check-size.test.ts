import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';

// The size guard of `npm run lint` (scripts/check-file-size.mjs), run on folders made for the test.
const SCRIPT = path.resolve('scripts/check-file-size.mjs');
const dirs: string[] = [];

function guard(files: Record<string, string>) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ragask-size-'));
  dirs.push(dir);
  for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(dir, name), text);
  const r = spawnSync(process.execPath, [SCRIPT, dir], { encoding: 'utf8' });
  return { status: r.status, stderr: r.stderr.replaceAll(`${dir}${path.sep}`, '') };
}

/** A function whose body holds `steps` statements, each followed by a comment line. */
function commented(name: string, steps: number): string {
  const body = Array.from({ length: steps }, () => '  // one more step\n  n += 1;\n').join('');
  return `export function ${name}(): number {\n  let n = 0;\n${body}  return n;\n}\n`;
}

afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

describe('the size guard', () => {
  it('names a function longer than 80 lines when its comments are counted', () => {
    // 2 + 2 × 39 + 2 = 82 lines, 43 of them code
    const r = guard({ 'long.ts': commented('tooLong', 39) });
    expect(r.status).toBe(1);
    expect(r.stderr).toBe('long.ts:1 tooLong: 82 lines (at most 80): split it\n');
  });

  it('passes a function of exactly 80 lines', () => {
    // 2 + 2 × 38 + 2 = 80 lines
    expect(guard({ 'fits.ts': commented('fits', 38) })).toEqual({ status: 0, stderr: '' });
  });

  it('names a long arrow by the constant it is bound to, and a long method by its name', () => {
    // 1 + 1 + 80 + 1 + 1 = 84 lines each; a class is not a function, so Counter itself is not named
    const steps = Array.from({ length: 80 }, () => '    n += 1;\n').join('');
    const r = guard({
      'arrow.ts': `export const tally = (): number => {\n  let n = 0;\n${steps}  return n;\n};\n`,
      'method.ts': `export class Counter {\n  count(): number {\n    let n = 0;\n${steps}    return n;\n  }\n}\n`,
    });
    expect(r.status).toBe(1);
    expect(r.stderr).toBe(
      'arrow.ts:1 tally: 84 lines (at most 80): split it\nmethod.ts:2 count: 84 lines (at most 80): split it\n',
    );
  });

  it('names a file over 400 lines, and passes a fitted file of data only', () => {
    const constants = Array.from({ length: 401 }, (_, i) => `export const C${i} = ${i};\n`).join('');
    const r = guard({ 'big.ts': constants, 'model.fitted.ts': constants });
    expect(r.status).toBe(1);
    expect(r.stderr).toBe('big.ts: 401 lines (at most 400): split it by concern\n');
  });
});
