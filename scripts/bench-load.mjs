#!/usr/bin/env node
// Load benchmark (not a test): `npm run bench:load [-- options]`.
// Runs `ragask serve` (HTTP receiver on 127.0.0.1) as its own process against a local stand-in of
// Slack, sends N concurrent signed @-mentions, and checks that every question is answered exactly
// once; reports throughput, latency p50/p95/p99 and the server's peak RSS. With --soak M it then
// asks M more questions (a steady 20 in flight) and samples the server's memory as it goes.
//   --questions N     burst size (default 50)
//   --soak M          questions in the soak (default 0)
//   --corpus C        sample | shared | both (default both; shared = every ../shared/datasets corpus)
//   --rate-limits R   slack | off: pace calls to Slack's tiers in the burst (default slack); the soak runs with off
//   --heap-mb H       cap the server's V8 heap at H MB (a leak then ends the run instead of growing RSS)
//   --live-heap       run the soak's server in this process and record its live heap after a forced
//                     collection every 250 questions (RSS alone cannot tell lazy GC from a leak)
//   --sustain S       then S more questions at a steady --qps, paced to Slack's tiers (default 0)
//   --qps Q           the sustained rate, questions per second (default 1)
//   --spread MS       the burst's mentions go out evenly over MS milliseconds (default 1000), from a
//                     sender process of their own; the ack is its time from sending to Slack's 200
//   --workers W       RAGASK_ENGINE_WORKERS of the server (default: its own default, one per core up to 4)
//   --sync-windows W  the server keeps a source of about W new windows current (RAGASK_SOURCES_FILE):
//                     its first sync pass runs from startup, beside the burst (answers during a sync)
//   --writer          with an answer writer: a stand-in OpenAI-compatible endpoint on 127.0.0.1 that
//                     writes one sentence of the first excerpt at WRITER_WORD_MS a word (a small local
//                     model's pace); the latency reported stays the extractive answer's
//   --json FILE       also write the figures as JSON
import { fork, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
// --live-heap needs global.gc: run again with --expose-gc
if (process.argv.includes('--live-heap') && typeof global.gc !== 'function') {
  const { spawnSync } = await import('node:child_process');
  const r = spawnSync(
    process.execPath,
    ['--expose-gc', ...process.execArgv, fileURLToPath(import.meta.url), ...process.argv.slice(2)],
    { stdio: 'inherit' },
  );
  process.exit(r.status ?? 1);
}
const { FakeSlack, deliver, eventBody, freePort } = await import(path.join(ROOT, 'dist-support', 'slack-stand-in.js'));

// Sender mode (a child of the driver): sends a burst of signed mentions at once and reports when
// each was sent and how long its ack took. Apart from the driver, which also plays Slack's Web API
// and is busy during a burst, its own event loop adds nothing to the ack times it measures.
if (process.env.BENCH_LOAD_SENDER) {
  const { port, secret, mentions, spreadMs } = JSON.parse(process.env.BENCH_LOAD_SENDER);
  // warm this process's HTTP client first (a URL verification, which asks no question)
  await deliver(
    port,
    secret,
    JSON.stringify({ type: 'url_verification', challenge: 'warm', token: 'x' }),
    'application/json',
  );
  const start = performance.now() + 50;
  const out = await Promise.all(
    mentions.map(async (m, i) => {
      const { body } = eventBody({
        type: 'app_mention',
        user: 'UBENCH',
        text: `<@UBOT> ${m.question}`,
        ts: m.ts,
        channel: m.channel,
        event_ts: m.ts,
      });
      // evenly over spreadMs: later mentions arrive while earlier ones are being answered
      await new Promise((r) =>
        setTimeout(r, Math.max(0, start + (i * spreadMs) / mentions.length - performance.now())),
      );
      const sent = Date.now();
      const t0 = performance.now();
      await deliver(port, secret, body, 'application/json');
      return { ts: m.ts, sent, ackMs: performance.now() - t0 };
    }),
  );
  process.send(out, () => process.exit(0));
  await new Promise(() => {});
}
const { loadConfig } = await import(path.join(ROOT, 'dist', 'config.js'));
const { openCore, storeSettingsOf } = await import(path.join(ROOT, 'dist', 'core.js'));
const { ingest } = await import(path.join(ROOT, 'dist', 'ingest', 'ingest.js'));
const { createSlackApp } = await import(path.join(ROOT, 'dist', 'slack', 'app.js'));
const { openSlackState } = await import(path.join(ROOT, 'dist', 'slack', 'state', 'open.js'));
const { createLogger } = await import(path.join(ROOT, 'dist', 'log.js'));

const usage = fs
  .readFileSync(fileURLToPath(import.meta.url), 'utf8')
  .split('\n')
  .slice(1, 24)
  .map((l) => l.replace(/^\/\/ ?/, ''))
  .join('\n');
let opt;
try {
  ({ values: opt } = parseArgs({
    options: {
      questions: { type: 'string', default: '50' },
      soak: { type: 'string', default: '0' },
      sustain: { type: 'string', default: '0' },
      qps: { type: 'string', default: '1' },
      workers: { type: 'string' },
      spread: { type: 'string', default: '1000' },
      corpus: { type: 'string', default: 'both' },
      'rate-limits': { type: 'string', default: 'slack' },
      json: { type: 'string' },
      writer: { type: 'boolean', default: false },
      'heap-mb': { type: 'string' },
      'live-heap': { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
      'sync-windows': { type: 'string', default: '0' },
    },
  }));
} catch (e) {
  process.stderr.write(`bench:load: ${e.message}; see --help\n`);
  process.exit(2);
}
if (opt.help) {
  process.stdout.write(`${usage}\n`);
  process.exit(0);
}
const N = Number(opt.questions);
const SPREAD_MS = Number(opt.spread);
const SOAK = Number(opt.soak);
const SUSTAIN = Number(opt.sustain);
const QPS = Number(opt.qps);
const badOption = [
  !(Number.isInteger(N) && N > 0) && `--questions must be a whole number above 0 (got "${opt.questions}")`,
  !(Number.isInteger(SOAK) && SOAK >= 0) && `--soak must be a whole number (got "${opt.soak}")`,
  !(Number.isInteger(SPREAD_MS) && SPREAD_MS >= 0) &&
    `--spread must be a whole number of milliseconds (got "${opt.spread}")`,
  !(Number.isInteger(SUSTAIN) && SUSTAIN >= 0) && `--sustain must be a whole number (got "${opt.sustain}")`,
  !(QPS > 0 && QPS <= 50) && `--qps must be a number above 0, at most 50 (got "${opt.qps}")`,
  !['sample', 'shared', 'both'].includes(opt.corpus) && `--corpus must be sample, shared or both (got "${opt.corpus}")`,
  !['slack', 'off'].includes(opt['rate-limits']) && `--rate-limits must be slack or off (got "${opt['rate-limits']}")`,
  opt['heap-mb'] !== undefined &&
    !(Number.isInteger(Number(opt['heap-mb'])) && Number(opt['heap-mb']) >= 32) &&
    `--heap-mb must be a whole number of MB, at least 32 (got "${opt['heap-mb']}")`,
].find(Boolean);
if (badOption) {
  process.stderr.write(`bench:load: ${badOption}\n`);
  process.exit(2);
}
const SECRET = '0123456789abcdef0123456789abcdef';
const say = (m) => process.stderr.write(`[bench:load] ${m}\n`);
/** The stand-in writer's pace: about ten tokens a second, a 1–3B model on a CPU. */
const WRITER_WORD_MS = 100;

/** With --writer: a stand-in chat endpoint that writes the first excerpt's first sentence back, cited. */
async function startWriter() {
  const { FakeLlm } = await import(path.join(ROOT, 'dist-support', 'llm-stand-in.js'));
  const firstSentence = (prompt) => {
    const text = /\[1\][^\n]*\n([^\n]+)/.exec(prompt)?.[1] ?? 'The documents do not say.';
    return `${(text.split(/(?<=[.!?])\s/)[0] ?? text).replace(/[.!?]$/, '')} [1].`;
  };
  const llm = new FakeLlm([{ reply: firstSentence, chunkDelayMs: WRITER_WORD_MS }]);
  await llm.start();
  return llm;
}
const writerLlm = opt.writer ? await startWriter() : null;

const cacheRoot =
  process.env.RAGASK_CACHE_DIR || path.join(process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache'), 'ragask');
const sharedDir = path.resolve(ROOT, '..', 'shared', 'datasets');

function readQuestions(file) {
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l).question);
}

/** A store with the corpus ingested, cached by content so reruns skip the ingest. */
async function prepare(kind) {
  // the shared evaluation sets: the folders with both a corpus and questions (reader-* sets have neither)
  const evalSets =
    kind === 'sample'
      ? []
      : fs
          .readdirSync(sharedDir)
          .filter((d) => ['corpus.jsonl', 'questions.jsonl'].every((f) => fs.existsSync(path.join(sharedDir, d, f))));
  const inputs =
    kind === 'sample'
      ? [path.join(ROOT, 'data', 'sample')]
      : evalSets.map((d) => path.join(sharedDir, d, 'corpus.jsonl'));
  const questions =
    kind === 'sample'
      ? readQuestions(path.join(ROOT, 'data', 'sample', 'questions.jsonl'))
      : evalSets.flatMap((d) => readQuestions(path.join(sharedDir, d, 'questions.jsonl')));
  const key = createHash('sha256')
    .update(inputs.map((f) => `${f}:${fs.statSync(f).mtimeMs}`).join('|'))
    .digest('hex')
    .slice(0, 12);
  const dataDir = path.join(cacheRoot, 'bench-load', `${kind}-${key}`);
  const config = loadConfig({ ...process.env, RAGASK_DATA_DIR: dataDir });
  const core = await openCore(config);
  try {
    const r = await ingest({ store: core.store, encoder: core.encoder, config }, inputs, {
      exclude: [path.join(ROOT, 'data', 'sample', 'questions.jsonl')],
    });
    const c = await core.store.documents.counts();
    say(`${kind} corpus: ${c.documents} documents, ${c.windows} windows (${r.added} ingested now)`);
    return { dataDir, questions, counts: c };
  } finally {
    await core.close();
  }
}

function rssOf(pid) {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (k) => Number(new RegExp(`${k}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);
  return { rss: kb('VmRSS') / 1024, hwm: kb('VmHWM') / 1024 };
}

function pct(xs, p) {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))] : 0;
}

async function startServer(dataDir, fake, rateLimits) {
  const port = await freePort();
  const heap = opt['heap-mb'] ? [`--max-old-space-size=${opt['heap-mb']}`] : [];
  const child = spawn(process.execPath, [...heap, path.join(ROOT, 'bin', 'ragask.js'), 'serve'], {
    env: { ...process.env, ...serverEnv(dataDir, fake, rateLimits, port) },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let err = '';
  let serving = false;
  await new Promise((resolve, reject) => {
    child.stderr.on('data', (d) => {
      err = (err + String(d)).slice(-4000);
      if (!serving && err.includes('ragask: serving Slack')) {
        serving = true;
        resolve();
      }
    });
    child.on('exit', (code, signal) => {
      const why = `serve exited (${signal ?? `code ${code}`})${serving ? ' in the middle of the run' : ' before it was ready'}: ${err.slice(-800)}`;
      if (!serving) reject(new Error(why));
      else if (!child.stoppedByBench) {
        say(why);
        process.exit(1);
      }
    });
  });
  return { child, port };
}

/**
 * A folder of about `windows` windows of new text and a sources file keeping it, for --sync-windows:
 * generated pages of five ~40-token paragraphs (about five windows each).
 */
function syncSourceFile(dataDir, windows) {
  const folder = path.join(dataDir, '..', 'sync-source');
  fs.mkdirSync(folder, { recursive: true });
  const words = 'queue retry backup deploy rotate token cache index replica shard lease quota alert audit'.split(' ');
  for (let i = 0; i < Math.ceil(windows / 5); i++) {
    const para = (k) =>
      `Service ${i}-${k} keeps its ${words[(i + k) % words.length]} for ${i + k} minutes, pages team ${i % 17} after ${k + 2} failures and rotates ${words[(i * 3 + k) % words.length]} keys every ${k + 7} days.`;
    fs.writeFileSync(path.join(folder, `page-${i}.md`), `# Page ${i}\n\n${[0, 1, 2, 3, 4].map(para).join('\n\n')}\n`);
  }
  const file = path.join(dataDir, '..', 'sources.yml');
  fs.writeFileSync(file, `sources:\n  - path: ${folder}\n    every: 1h\n`);
  return file;
}

/** The server's environment: `ragask serve` against the stand-in, with no query cache. */
function serverEnv(dataDir, fake, rateLimits, port) {
  const syncWindows = Number(opt['sync-windows']);
  return {
    ...(syncWindows > 0 ? { RAGASK_SOURCES_FILE: syncSourceFile(dataDir, syncWindows) } : {}),
    ...fake.serveEnv({ dataDir, port, signingSecret: SECRET }),
    RAGASK_SLACK_RATE_LIMITS: rateLimits,
    // every question does the engine's full work: no answers from the query cache
    RAGASK_QUERY_CACHE_TTL_S: '0',
    ...(opt.workers !== undefined ? { RAGASK_ENGINE_WORKERS: opt.workers } : {}),
    ...(writerLlm ? { RAGASK_WRITER_URL: writerLlm.url, RAGASK_WRITER_MODEL: writerLlm.model } : {}),
  };
}

/** `ragask serve`'s parts, started in this process (for --live-heap). */
async function startInProcess(dataDir, fake, rateLimits) {
  const port = await freePort();
  const config = loadConfig(
    { ...process.env, ...serverEnv(dataDir, fake, rateLimits, port) },
    {},
    { features: ['slack'] },
  );
  const log = createLogger({ level: 'warn', secrets: [] });
  const core = await openCore(config, log);
  const state = await openSlackState(storeSettingsOf(config), config.slack.stateTtlMs);
  const slack = createSlackApp(core, state, config, log);
  await slack.start();
  return {
    port,
    async stop() {
      await slack.stop();
      await state.close();
      await core.close();
    },
  };
}

/** Tracks each question from its event to its answer, through the stand-in's calls. */
function tracker(fake) {
  const sent = new Map(); // thread ts → send time
  const placeholders = new Map(); // placeholder ts → thread ts
  const posts = new Map(); // thread ts → count
  const answers = new Map(); // thread ts → [times]
  let busy = 0;
  const record = (thread) => {
    const list = answers.get(thread) ?? [];
    list.push(Date.now());
    answers.set(thread, list);
  };
  let asNew = 0;
  fake.hooks.push((call) => {
    const isAnswer = JSON.stringify(call.args.blocks ?? []).includes('Confidence');
    // an answer posted as a new message in its thread (the update tier spent)
    if (call.method === 'chat.postMessage' && isAnswer && sent.has(call.args.thread_ts)) {
      asNew++;
      record(call.args.thread_ts);
      return;
    }
    if (call.method === 'chat.postMessage' && call.args.thread_ts && sent.has(call.args.thread_ts)) {
      posts.set(call.args.thread_ts, (posts.get(call.args.thread_ts) ?? 0) + 1);
      // the stand-in answers after the hook: its ts is the next one it hands out
      queueMicrotask(() => call.result && placeholders.set(call.result.ts, call.args.thread_ts));
    }
    if (call.method === 'chat.update' && isAnswer) {
      setImmediate(() => {
        const thread = placeholders.get(call.args.ts);
        if (thread) record(thread);
      });
    }
    if (call.method === 'chat.postEphemeral' && JSON.stringify(call.args.blocks ?? []).includes('queued')) busy++;
  });
  return { sent, posts, answers, busy: () => busy, asNew: () => asNew };
}

let threadSeq = 0;
async function ask(port, t, question, channel) {
  const ts = `${9_000_000 + ++threadSeq}.000100`;
  t.sent.set(ts, Date.now());
  const { body } = eventBody({
    type: 'app_mention',
    user: 'UBENCH',
    text: `<@UBOT> ${question}`,
    ts,
    channel,
    event_ts: ts,
  });
  await deliver(port, SECRET, body, 'application/json');
  return ts;
}

/** Sends the mentions at once from a sender process (see sender mode above); resolves with what it measured. */
function sendBurst(port, mentions) {
  return new Promise((resolve, reject) => {
    const sender = fork(fileURLToPath(import.meta.url), [], {
      env: {
        ...process.env,
        BENCH_LOAD_SENDER: JSON.stringify({ port, secret: SECRET, mentions, spreadMs: SPREAD_MS }),
      },
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    });
    sender.once('message', resolve);
    sender.once('exit', (code) => code !== 0 && reject(new Error(`the burst sender exited with code ${code}`)));
  });
}

async function until(check, timeoutMs, what) {
  const end = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out: ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** How long no new write may start before the written replies count as settled. */
const WRITES_QUIET_MS = 5000;

/** Waits until every started written reply has ended and none has started for WRITES_QUIET_MS. */
async function writesSettled(fake) {
  let seen = -1;
  let since = Date.now();
  await until(
    () => {
      const started = fake.callsOf('chat.startStream').length;
      if (started !== seen) [seen, since] = [started, Date.now()];
      return started === fake.callsOf('chat.stopStream').length && Date.now() - since >= WRITES_QUIET_MS;
    },
    300_000,
    'the written replies',
  );
}

async function burst(kind, prep) {
  const fake = new FakeSlack();
  await fake.start();
  const { child, port } = await startServer(prep.dataDir, fake, opt['rate-limits']);
  const t = tracker(fake);
  let peak = 0;
  const sampler = setInterval(() => (peak = Math.max(peak, rssOf(child.pid).rss)), 100);
  try {
    // warm the process (model, caches) with one question first, as a running bot would be
    const warm = await ask(port, t, prep.questions[0], 'CWARM');
    await until(() => t.answers.has(warm), 60_000, 'warm-up answer');
    const start = Date.now();
    const mentions = Array.from({ length: N }, (_, i) => ({
      ts: `${9_000_000 + ++threadSeq}.000100`,
      channel: `CL${i}`,
      question: prep.questions[i % prep.questions.length],
    }));
    // known to the tracker before they go out (their placeholders come at once); then the sender's send times
    for (const m of mentions) t.sent.set(m.ts, Date.now());
    const sent = await sendBurst(port, mentions);
    for (const m of sent) t.sent.set(m.ts, m.sent);
    const threads = sent.map((m) => m.ts);
    const acks = sent.map((m) => Math.round(m.ackMs));
    await until(() => threads.every((ts) => t.answers.has(ts)), 300_000, `${N} answers`);
    await new Promise((r) => setTimeout(r, 1000)); // any duplicate would show up by now
    // the written replies go on after the answers: each started stream ends (checked text or a note)
    if (writerLlm) await writesSettled(fake);
    const end = Math.max(...threads.map((ts) => t.answers.get(ts)[0]));
    const latencies = threads.map((ts) => t.answers.get(ts)[0] - t.sent.get(ts));
    const exactlyOnce = threads.every((ts) => t.posts.get(ts) === 1 && t.answers.get(ts).length === 1);
    const r = {
      corpus: kind,
      documents: prep.counts.documents,
      windows: prep.counts.windows,
      questions: N,
      answered: threads.filter((ts) => t.answers.has(ts)).length,
      exactlyOnce,
      busyNotices: t.busy(),
      throughputPerS: +(N / ((end - start) / 1000)).toFixed(2),
      latencyMs: { p50: pct(latencies, 50), p95: pct(latencies, 95), p99: pct(latencies, 99) },
      ackMs: { p50: pct(acks, 50), p99: pct(acks, 99), max: Math.max(...acks) },
      workers: opt.workers ?? 'default',
      peakRssMb: +Math.max(peak, rssOf(child.pid).hwm).toFixed(0),
      rateLimits: opt['rate-limits'],
      // written answers whose stream was stopped (checked text or a note in the draft's place)
      written: writerLlm ? fake.callsOf('chat.stopStream').length : null,
      writerRequests: writerLlm ? writerLlm.requests.length : null,
    };
    say(`${kind}: ${JSON.stringify(r)}`);
    return r;
  } finally {
    clearInterval(sampler);
    child.stoppedByBench = true;
    child.kill('SIGTERM');
    await fake.stop();
  }
}

/** SUSTAIN questions at a steady QPS, Slack's tiers on: what a busy team gets over minutes. */
async function sustained(kind, prep) {
  const fake = new FakeSlack();
  await fake.start();
  const { child, port } = await startServer(prep.dataDir, fake, 'slack');
  const t = tracker(fake);
  try {
    const warm = await ask(port, t, prep.questions[0], 'CWARM');
    await until(() => t.answers.has(warm), 60_000, 'warm-up answer');
    const asNewBefore = t.asNew();
    const start = Date.now();
    const threads = [];
    const acks = [];
    for (let i = 0; i < SUSTAIN; i++) {
      const due = start + (i * 1000) / QPS;
      await new Promise((r) => setTimeout(r, Math.max(0, due - Date.now())));
      const t0 = Date.now();
      const sending = ask(port, t, prep.questions[i % prep.questions.length], `CU${i % 10}`).then((ts) => {
        acks.push(Date.now() - t0);
        return ts;
      });
      threads.push(sending);
    }
    const all = await Promise.all(threads);
    await until(() => all.every((ts) => t.answers.has(ts)), 600_000, `${SUSTAIN} sustained answers`);
    await new Promise((r) => setTimeout(r, 1000));
    const latencies = all.map((ts) => t.answers.get(ts)[0] - t.sent.get(ts));
    const r = {
      corpus: kind,
      questions: SUSTAIN,
      qps: QPS,
      seconds: +((Date.now() - start) / 1000).toFixed(1),
      exactlyOnce: all.every((ts) => t.posts.get(ts) === 1 && t.answers.get(ts).length === 1),
      answersAsNewMessage: t.asNew() - asNewBefore,
      latencyMs: { p50: pct(latencies, 50), p95: pct(latencies, 95), p99: pct(latencies, 99) },
      ackMs: { p50: pct(acks, 50), p99: pct(acks, 99), max: Math.max(...acks) },
    };
    say(`sustained ${kind}: ${JSON.stringify(r)}`);
    return r;
  } finally {
    child.stoppedByBench = true;
    child.kill('SIGTERM');
    await fake.stop();
  }
}

async function soak(kind, prep) {
  const fake = new FakeSlack();
  fake.record = false;
  await fake.start();
  const live = opt['live-heap'];
  const { child, port, stop } = live
    ? { child: null, ...(await startInProcess(prep.dataDir, fake, 'off')) }
    : await startServer(prep.dataDir, fake, 'off');
  const pid = child?.pid ?? process.pid;
  const t = tracker(fake);
  const samples = [];
  const heap = []; // live heap MB after a forced collection, every 250 questions
  let answered = 0;
  const start = Date.now();
  const sampler = setInterval(() => samples.push({ s: (Date.now() - start) / 1000, rss: rssOf(pid).rss }), 500);
  try {
    let next = 0;
    let inFlight = 0;
    const threads = [];
    await new Promise((resolve, reject) => {
      const pump = () => {
        while (inFlight < 20 && next < SOAK) {
          inFlight++;
          const i = next++;
          ask(port, t, prep.questions[i % prep.questions.length], `CS${i % 50}`)
            .then((ts) => {
              threads.push(ts);
              return until(() => t.answers.has(ts), 120_000, `soak answer ${i}`);
            })
            .then(() => {
              inFlight--;
              if (live && ++answered % 250 === 0) {
                global.gc();
                heap.push(process.memoryUsage().heapUsed / 2 ** 20);
              }
              if (next >= SOAK && inFlight === 0) resolve();
              else pump();
            }, reject);
        }
      };
      pump();
    });
    const exactlyOnce = threads.every((ts) => t.posts.get(ts) === 1 && t.answers.get(ts).length === 1);
    const at = (f) => samples[Math.min(samples.length - 1, Math.floor(f * (samples.length - 1)))]?.rss ?? 0;
    const r = {
      corpus: kind,
      questions: SOAK,
      seconds: +((Date.now() - start) / 1000).toFixed(1),
      exactlyOnce,
      server: live ? 'in-process' : 'own process',
      rssMb: {
        at10pct: +at(0.1).toFixed(0),
        at50pct: +at(0.5).toFixed(0),
        at100pct: +at(1).toFixed(0),
        peak: +rssOf(pid).hwm.toFixed(0),
      },
      ...(live ? { liveHeapMb: heap.map((h) => +h.toFixed(1)) } : {}),
    };
    say(`soak ${kind}: ${JSON.stringify(r)}`);
    return r;
  } finally {
    clearInterval(sampler);
    if (child) {
      child.stoppedByBench = true;
      child.kill('SIGTERM');
    } else await stop();
    await fake.stop();
  }
}

const corpora = opt.corpus === 'both' ? ['sample', 'shared'] : [opt.corpus];
const results = {
  machine: `${os.cpus()[0]?.model ?? 'cpu'} × ${os.availableParallelism()}, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.versions.node}`,
  bursts: [],
  sustained: [],
  soaks: [],
};
for (const kind of corpora) {
  if (kind === 'shared' && !fs.existsSync(sharedDir)) {
    say(`${sharedDir} not found; skipping the shared corpus`);
    continue;
  }
  const prep = await prepare(kind);
  results.bursts.push(await burst(kind, prep));
  if (SUSTAIN > 0) results.sustained.push(await sustained(kind, prep));
  if (SOAK > 0) results.soaks.push(await soak(kind, prep));
}
const lines = [
  `machine: ${results.machine}`,
  '',
  '| corpus | documents / windows | engine workers | writer (written replies) | questions | answered exactly once | busy notices | throughput q/s | latency p50 / p95 / p99 ms | ack p50 / p99 / max ms | peak RSS MB |',
  '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |',
  ...results.bursts.map(
    (b) =>
      `| ${b.corpus} | ${b.documents} / ${b.windows} | ${b.workers} | ${b.written === null ? 'off' : `stand-in (${b.written})`} | ${b.questions} | ${b.exactlyOnce ? 'yes' : 'NO'} (${b.answered}) | ${b.busyNotices} | ${b.throughputPerS} | ${b.latencyMs.p50} / ${b.latencyMs.p95} / ${b.latencyMs.p99} | ${b.ackMs.p50} / ${b.ackMs.p99} / ${b.ackMs.max} | ${b.peakRssMb} |`,
  ),
];
if (results.sustained.length) {
  lines.push(
    '',
    '| sustained corpus | questions | rate q/s | answered exactly once | answers as new messages | latency p50 / p95 / p99 ms | ack p50 / p99 / max ms |',
    '| --- | --- | --- | --- | --- | --- | --- |',
  );
  for (const u of results.sustained)
    lines.push(
      `| ${u.corpus} | ${u.questions} | ${u.qps} | ${u.exactlyOnce ? 'yes' : 'NO'} | ${u.answersAsNewMessage} | ${u.latencyMs.p50} / ${u.latencyMs.p95} / ${u.latencyMs.p99} | ${u.ackMs.p50} / ${u.ackMs.p99} / ${u.ackMs.max} |`,
    );
}
if (results.soaks.length) {
  lines.push(
    '',
    '| soak corpus | questions | seconds | answered exactly once | RSS MB at 10% / 50% / 100% | peak RSS MB |',
    '| --- | --- | --- | --- | --- | --- |',
  );
  for (const s of results.soaks)
    lines.push(
      `| ${s.corpus} | ${s.questions} | ${s.seconds} | ${s.exactlyOnce ? 'yes' : 'NO'} | ${s.rssMb.at10pct} / ${s.rssMb.at50pct} / ${s.rssMb.at100pct} | ${s.rssMb.peak} |`,
    );
  for (const s of results.soaks.filter((x) => x.liveHeapMb))
    lines.push(
      '',
      `live heap MB after a collection every 250 questions (${s.corpus}, server in-process): ${s.liveHeapMb.map((h) => h.toFixed(0)).join(' ')}`,
    );
}
process.stdout.write(`${lines.join('\n')}\n`);
if (opt.json) fs.writeFileSync(opt.json, `${JSON.stringify(results, null, 2)}\n`);
const failed =
  results.bursts.some((b) => !b.exactlyOnce) ||
  results.sustained.some((u) => !u.exactlyOnce) ||
  results.soaks.some((s) => !s.exactlyOnce);
process.exitCode = failed ? 1 : 0;
await writerLlm?.stop();
