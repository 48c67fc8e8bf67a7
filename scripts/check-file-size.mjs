// The lint guard on size: no file in src holds more than MAX_LINES lines, so a room that grows is
// split by concern before it becomes the next 1,000-line class; and no function spans more than
// MAX_FUNCTION_LINES lines counted as a reader sees them, the comments and SQL strings inside it
// included (biome's rule counts code lines only, so a function could grow past the limit behind its
// comments). A function's lines include those of the functions nested in it.
// Generated `*.fitted.ts` files are exempt when they hold only data (constants, no function or class).
//   node scripts/check-file-size.mjs [dir]   exits 1 and names each file or function over its limit
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

const MAX_LINES = 400;
const MAX_FUNCTION_LINES = 80;
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

/** A function's name, or for an arrow or function expression the name it is bound to. */
function functionName(node, sf) {
  if (node.name) return node.name.getText(sf);
  if (ts.isConstructorDeclaration(node)) return 'constructor';
  const bound = node.parent;
  if (bound && (ts.isVariableDeclaration(bound) || ts.isPropertyAssignment(bound) || ts.isPropertyDeclaration(bound)))
    return bound.name.getText(sf);
  return '(anonymous)';
}

/** Each function with a body longer than the limit, as "file:line name: N lines". */
function longFunctions(file, text) {
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found = [];
  const visit = (node) => {
    if (ts.isFunctionLike(node) && node.body) {
      const first = sf.getLineAndCharacterOfPosition(node.getStart(sf)).line;
      const last = sf.getLineAndCharacterOfPosition(node.end).line;
      const name = functionName(node, sf);
      if (last - first + 1 > MAX_FUNCTION_LINES)
        found.push(`${file}:${first + 1} ${name}: ${last - first + 1} lines (at most ${MAX_FUNCTION_LINES}): split it`);
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return found;
}

const dir = process.argv[2] ?? 'src';
const over = [];
for (const file of sourceFiles(dir).sort()) {
  const text = fs.readFileSync(file, 'utf8');
  const lines = text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
  if (lines > MAX_LINES && !dataOnly(file, text))
    over.push(`${file}: ${lines} lines (at most ${MAX_LINES}): split it by concern`);
  over.push(...longFunctions(file, text));
}
for (const line of over) process.stderr.write(`${line}\n`);
process.exit(over.length > 0 ? 1 : 0);
