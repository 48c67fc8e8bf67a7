#!/usr/bin/env node
// Counts the hand-written rules of a source folder: regular expressions (literals and `new RegExp`)
// and word lists (array literals of five or more words or phrases, a string split into five or more
// words, or five or more plain words as the alternatives of a pattern or of a pattern's string).
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
/** Words and phrases of a language, not identifiers (feature names, enum members). */
const WORDS = /^[\p{L}' -]+$/u;
/** An array literal of at least WORD_LIST_MIN words or phrases, outside a schema's enum. */
/** A regular expression or a string of five or more plain words as alternatives ("offset|amount|size|…"). */
const isAlternation = (n) => {
  const text =
    n.kind === ts.SyntaxKind.RegularExpressionLiteral ? n.getText() : ts.isStringLiteralLike(n) ? n.text : null;
  if (!text?.includes('|')) return false;
  return (
    text.split('|').filter((a) => /^[\p{L}' ]{2,}$/u.test(a.replace(/^[(?:\\b^]+|[)\\b$]+$/g, ''))).length >=
    WORD_LIST_MIN
  );
};
const isWordList = (n) =>
  ts.isArrayLiteralExpression(n) &&
  !(ts.isCallExpression(n.parent) && n.parent.expression.getText().endsWith('.enum')) &&
  // a model's feature names, not words it looks for
  !/features/i.test(
    ts.isVariableDeclaration(n.parent) || ts.isPropertyAssignment(n.parent) ? n.parent.name.getText() : '',
  ) &&
  !(
    ts.isAsExpression(n.parent) &&
    ts.isVariableDeclaration(n.parent.parent) &&
    /FEATURES/.test(n.parent.parent.name.getText())
  ) &&
  n.elements.filter((e) => ts.isStringLiteralLike(e) && WORDS.test(e.text)).length >= WORD_LIST_MIN;
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
    if (isWordList(n) || isAlternation(n)) l++;
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
