#!/usr/bin/env node
// Counts the hand-written rules of a source folder: regular expressions (literals and `new RegExp`)
// and word lists (array literals of five or more strings, or a string split into five or more words).
//   node scripts/count-rules.mjs [src/engine]
// Read with TypeScript's own parser, so a "/" in a division or a comment is not counted.
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

const root = process.argv[2] ?? 'src/engine';
const files = [];
const walk = (d) => {
  for (const e of fs.readdirSync(d, { withFileTypes: true })) {
    const p = path.join(d, e.name);
    if (e.isDirectory()) walk(p);
    else if (p.endsWith('.ts')) files.push(p);
  }
};
walk(root);
const WORD_LIST_MIN = 5;
let regexes = 0;
let lists = 0;
const perFile = [];
for (const f of files.sort()) {
  const src = ts.createSourceFile(f, fs.readFileSync(f, 'utf8'), ts.ScriptTarget.ES2022, true);
  let r = 0;
  let l = 0;
  const visit = (n) => {
    if (n.kind === ts.SyntaxKind.RegularExpressionLiteral) r++;
    if (ts.isNewExpression(n) && n.expression.getText() === 'RegExp') r++;
    if (ts.isArrayLiteralExpression(n) && n.elements.filter(ts.isStringLiteralLike).length >= WORD_LIST_MIN) l++;
    if (
      ts.isCallExpression(n) &&
      ts.isPropertyAccessExpression(n.expression) &&
      n.expression.name.text === 'split' &&
      ts.isStringLiteralLike(n.expression.expression) &&
      n.expression.expression.text.trim().split(/\s+/).length >= WORD_LIST_MIN
    )
      l++;
    ts.forEachChild(n, visit);
  };
  visit(src);
  regexes += r;
  lists += l;
  if (r || l) perFile.push(`${path.relative(root, f)}: ${r} regular expressions, ${l} word lists`);
}
console.log(perFile.join('\n'));
console.log(`${root}: ${regexes} regular expressions, ${lists} word lists in ${files.length} files`);
