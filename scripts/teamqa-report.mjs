#!/usr/bin/env node
// Pools `ragask eval --modes multihop --json` reports of several sets into one Markdown table: what a
// person sees per set and pooled over them (each figure weighted by the questions it is over).
//
//   node scripts/teamqa-report.mjs DIR [DIR…]     every *.json under each DIR, one row per set
import fs from 'node:fs';
import path from 'node:path';

const dirs = process.argv.slice(2);
if (!dirs.length) {
  process.stderr.write('usage: node scripts/teamqa-report.mjs DIR [DIR…] (folders of ragask eval --json reports)\n');
  process.exit(2);
}
const reports = dirs.flatMap((d) =>
  fs
    .readdirSync(d)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => JSON.parse(fs.readFileSync(path.join(d, f), 'utf8'))),
);

/** One set's figures with the counts they are over, so sets pool by question, not by set. */
function figures(report) {
  const m = report.modes.multihop;
  const types = m.by_type ?? {};
  const count = (t) => types[t]?.questions ?? 0;
  const all = Object.values(types).reduce((s, t) => s + t.questions, 0) || report.questions;
  const answerable = all - count('unanswerable');
  const per = report.per_question?.multihop ?? [];
  const ms = per.map((q) => q.ms).sort((a, b) => a - b);
  const oneHop = per.filter((q) => q.type !== 'bridge');
  return {
    set: report.dataset,
    all,
    answerable,
    v1: m['visible@1'] * answerable,
    v3: m['visible@3'] * answerable,
    right: m.answered_right * all,
    wrong: m.wrong_answers * all,
    high: m.high_answers,
    highRight: m.high_answers * m.high_precision,
    hops: m.mean_hops * all,
    oneHopHops: oneHop.reduce((s, q) => s + q.hops, 0),
    oneHop: oneHop.length,
    p95: ms.length ? ms[Math.min(ms.length - 1, Math.ceil(0.95 * ms.length) - 1)] : m.latency_ms.p95,
    type: Object.fromEntries(
      ['procedure', 'name', 'bridge', 'factoid'].map((t) => [t, [types[t]?.['visible@1'] * count(t) || 0, count(t)]]),
    ),
  };
}

const rows = reports.map(figures);
const pooled = rows.reduce(
  (a, r) => {
    for (const k of [
      'all',
      'answerable',
      'v1',
      'v3',
      'right',
      'wrong',
      'high',
      'highRight',
      'hops',
      'oneHopHops',
      'oneHop',
    ])
      a[k] = (a[k] ?? 0) + r[k];
    a.p95 = Math.max(a.p95 ?? 0, r.p95);
    for (const [t, [v, n]] of Object.entries(r.type)) {
      a.type[t] ??= [0, 0];
      a.type[t][0] += v;
      a.type[t][1] += n;
    }
    return a;
  },
  { set: '**pooled**', type: {} },
);

const f = (x, n) => (n ? (x / n).toFixed(3) : '–');
const line = (r) =>
  `| ${r.set} | ${r.all} | ${f(r.v1, r.answerable)} | ${f(r.v3, r.answerable)} | ${f(r.type.procedure[0], r.type.procedure[1])} | ${f(r.type.name[0], r.type.name[1])} | ${f(r.type.bridge[0], r.type.bridge[1])} | ${f(r.right, r.all)} | ${f(r.wrong, r.all)} | ${r.high ? `${Math.round(r.highRight)}/${Math.round(r.high)}` : '0'} | ${f(r.hops, r.all)} | ${f(r.oneHopHops, r.oneHop)} | ${Math.round(r.p95)} |`;
process.stdout.write(
  `${[
    '| set | questions | visible@1 | visible@3 | procedure v@1 | name v@1 | bridge v@1 | right | wrong | high right | hops | hops (one-hop questions) | p95 ms |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|---|',
    ...rows.map(line),
    line(pooled).replace(`| ${Math.round(pooled.p95)} |`, `| ${Math.round(pooled.p95)} (max) |`),
  ].join('\n')}\n`,
);
