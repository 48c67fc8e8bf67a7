// The lint guard on file size: no file in src holds more than MAX_LINES lines, so a room that grows
// is split by concern before it becomes the next 1,000-line class. Generated `*.fitted.ts` files are
// exempt when they hold only data (an export of constants, no function or class).
//   node scripts/check-file-size.mjs [dir]   exits 1 and names each file over the limit
import fs from 'node:fs';
import path from 'node:path';

const MAX_LINES = 400;
const CODE = /\b(function|class)\b|=>/;

/** Every .ts file under `dir`. */
function sourceFiles(dir) {
  return fs
    .readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts'))
    .map((e) => path.join(e.parentPath, e.name));
}

/** A generated file of fitted constants only. */
const dataOnly = (file, text) => file.endsWith('.fitted.ts') && !CODE.test(text);

const dir = process.argv[2] ?? 'src';
const over = [];
for (const file of sourceFiles(dir).sort()) {
  const text = fs.readFileSync(file, 'utf8');
  const lines = text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
  if (lines > MAX_LINES && !dataOnly(file, text))
    over.push(`${file}: ${lines} lines (at most ${MAX_LINES}): split it by concern`);
}
for (const line of over) process.stderr.write(`${line}\n`);
process.exit(over.length > 0 ? 1 : 0);
