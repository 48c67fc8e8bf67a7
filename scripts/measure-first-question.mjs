#!/usr/bin/env node
// The first questions after start-up, as `ragask serve` meets them: the store and models are opened
// (as serve opens them), then questions are asked in turn and each one's time, whether the time
// budget cut it short, and its answer are printed. With --warm, the engine's warm-up question
// (src/engine/warm-up.ts) is asked first, as serve now does. With --drop-caches (root only), the
// kernel's page cache is emptied before the process opens anything: a disk as cold as after a
// reboot or a fresh container.
//
//   npm run build && node scripts/measure-first-question.mjs [--warm] [--drop-caches] [question …]
//
// The store is the configured one (RAGASK_DATA_DIR; `npm run demo` fills the default with the
// sample corpus, whose two questions are asked when none is given).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const warm = args.includes('--warm');
const dropCaches = args.includes('--drop-caches');
const given = args.filter((a) => !a.startsWith('--'));
const questions = given.length
  ? given
  : [
      'Who leads the project whose drone lost telemetry on 2024-03-14?',
      'Which calibration offset applies at −20 °C to the temperature sensor used in Project Falcon?',
    ];

if (dropCaches) {
  execFileSync('sync');
  try {
    fs.writeFileSync('/proc/sys/vm/drop_caches', '3\n');
  } catch (e) {
    process.stderr.write(`measure-first-question: --drop-caches needs root (${e.code}); run without it, or as root\n`);
    process.exit(2);
  }
}
const dist = (m) => import(path.join(ROOT, 'dist', m));
const { loadConfig } = await dist('config.js');
const { openCore } = await dist('core.js');
const { warmUp } = await dist('engine/warm-up.js');
const { LOCAL } = await dist('store/access.js');

const t0 = performance.now();
const core = await openCore(loadConfig(process.env));
console.log(`opened in ${Math.round(performance.now() - t0)} ms`);
if (warm) console.log(`warm-up question: ${Math.round(await warmUp(core.engine, 1))} ms`);
for (const q of questions) {
  const r = await core.engine.run(q, LOCAL);
  console.log(
    `${Math.round(r.timings.totalMs)} ms  cut short: ${r.incomplete ? 'yes' : 'no'}  answer: ${r.answer.value ?? '(declined)'}  — ${q}`,
  );
}
await core.close();
