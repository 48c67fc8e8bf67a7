#!/usr/bin/env node
// The compiled CLI lives in dist/ (built by `npm install` through the `prepare` script).
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const entry = new URL('../dist/cli/main.js', import.meta.url);
if (!existsSync(fileURLToPath(entry))) {
  process.stderr.write('ragask: dist/ is missing; run `npm install` (or `npm run build`) in the ragask folder first.\n');
  process.exit(1);
}
await import(entry.href);
