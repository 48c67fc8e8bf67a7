#!/usr/bin/env node
// The time to ingest a channel of N Slack messages from the stand-in (127.0.0.1), paced by Slack's
// method tiers as against the real Slack (conversations.history and .replies are Tier 3: 50 calls a
// minute), through `ragask ingest --slack` in its own process and store.
//
//   npm run build && node scripts/bench-slack-ingest.mjs [--messages 10000] [--thread-share 0.2] [--tiers slack|off]
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { FakeSlack } = await import(path.join(ROOT, 'dist-support', 'slack-stand-in.js'));
const { values } = parseArgs({
  options: {
    messages: { type: 'string', default: '10000' },
    'thread-share': { type: 'string', default: '0.2' },
    'replies-per-thread': { type: 'string', default: '4' },
    tiers: { type: 'string', default: 'slack' },
  },
});
const total = Number(values.messages);
const threadShare = Number(values['thread-share']);
const perThread = Number(values['replies-per-thread']);

// a channel of lone messages and threads (a share of the roots, each with a few replies), made-up ops chatter
const WORDS =
  'deploy staging database backup restore vpn gateway certificate renew ticket incident rollback cache latency queue worker cron alert pager dashboard migration index replica failover token rotation quota disk'.split(
    ' ',
  );
const sentence = (i) =>
  `${Array.from({ length: 14 }, (_, k) => WORDS[(i * 7 + k * 13) % WORDS.length]).join(' ')} (#${i}).`;
const messages = [];
let ts = 1_700_000_000;
for (let made = 0, i = 0; made < total; i++) {
  const root = `${++ts}.000100`;
  messages.push({ ts: root, user: `U${i % 40}`, text: sentence(made++) });
  if (i % Math.round(1 / threadShare) === 0)
    for (let r = 0; r < perThread && made < total; r++)
      messages.push({ ts: `${++ts}.000100`, user: `U${(i + r + 1) % 40}`, text: sentence(made++), thread_ts: root });
}
const fake = new FakeSlack();
await fake.start();
fake.channels.set('CBENCH', { name: 'bench', isPrivate: false, member: true, messages });
for (let u = 0; u < 40; u++) fake.users.set(`U${u}`, `person${u}`);
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ragask-bench-slack-'));
const t0 = performance.now();
const child = spawn(process.execPath, [path.join(ROOT, 'bin', 'ragask.js'), 'ingest', '--slack', 'CBENCH'], {
  env: {
    ...process.env,
    RAGASK_DATA_DIR: dataDir,
    SLACK_BOT_TOKEN: 'xoxb-1-stand-in-token',
    RAGASK_SLACK_API_URL: fake.apiUrl,
    RAGASK_SLACK_RATE_LIMITS: values.tiers,
    RAGASK_LOG_LEVEL: 'error',
  },
  stdio: ['ignore', 'pipe', 'inherit'],
});
let out = '';
child.stdout.on('data', (d) => (out += d));
const code = await new Promise((r) => child.on('exit', r));
const seconds = (performance.now() - t0) / 1000;
await fake.stop();
fs.rmSync(dataDir, { recursive: true, force: true });
const calls = (m) => fake.counts.get(m) ?? 0;
process.stdout.write(
  `${JSON.stringify({
    messages: messages.length,
    threads: messages.filter((m) => m.thread_ts).length
      ? new Set(messages.map((m) => m.thread_ts).filter(Boolean)).size
      : 0,
    tiers: values.tiers,
    exit: code,
    seconds: Math.round(seconds * 10) / 10,
    history_calls: calls('conversations.history'),
    replies_calls: calls('conversations.replies'),
    users_calls: calls('users.info'),
    ingest: out.trim(),
  })}\n`,
);
