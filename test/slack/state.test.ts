import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SqliteConversations } from '../../src/store/sqlite/conversations.js';
import { SLACK_MIGRATIONS, setMeta } from '../../src/store/sqlite/schema.js';
import { RESULT_CODEC } from '../../src/slack/state/open.js';
import { openDatabase } from '../../src/store/sqlite/db.js';
import type { SlackStateStore } from '../../src/slack/state/interfaces.js';
import { openPool, type PgPool } from '../../src/store/pg/db.js';
import { PgConversations } from '../../src/store/pg/conversations.js';
import { ROOT, tempDir } from '../helpers.js';
import { result } from '../fixtures/results.js';
import { BACKENDS, freshSchema, skipBackend, type Backend } from '../pg.js';

const dir = tempDir();
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
let n = 0;
const freshDb = () => openDatabase(path.join(dir, `slack-${n++}.db`));

/** A pid that certainly belonged to a process that has exited. */
function deadPid(): number {
  const r = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  return Number(r.stdout);
}

const feedback = (stateKey: string, user: string, value: 'helpful' | 'not_helpful') => ({
  stateKey,
  channel: 'C1',
  threadTs: '1.1',
  messageTs: '1.2',
  user,
  value,
  question: 'Who leads Falcon?',
  answer: 'Mirela Ostrowski',
  evidence: [1, 2],
});

describe('SqliteConversations', () => {
  it('keeps one feedback entry per answer and person: clicking again changes it', async () => {
    const store = new SqliteConversations(freshDb(), { codec: RESULT_CODEC, ttlMs: 3600_000 });
    await store.feedback.addFeedback(feedback('C1:1.1:1.2:a', 'U1', 'helpful'));
    await store.feedback.addFeedback(feedback('C1:1.1:1.2:a', 'U1', 'not_helpful'));
    await store.feedback.addFeedback(feedback('C1:1.1:1.2:a', 'U2', 'helpful'));
    // the same message after "Continue with…" is a new answer, so it gets its own entry
    await store.feedback.addFeedback(feedback('C1:1.1:1.2:b', 'U1', 'helpful'));
    const rows = await store.feedback.listFeedback();
    expect(rows).toHaveLength(3);
    expect(rows.filter((r) => r.stateKey === 'C1:1.1:1.2:a' && r.user === 'U1').map((r) => r.value)).toEqual([
      'not_helpful',
    ]);
    expect(rows.find((r) => r.stateKey === 'C1:1.1:1.2:b')!.value).toBe('helpful');
  });

  it('reads back the results it stored, and treats one stored by code of another result version as expired, never cast', async () => {
    const store = new SqliteConversations(freshDb(), { codec: RESULT_CODEC, ttlMs: 3600_000 });
    const stored = result();
    const key = await store.states.saveState({
      channel: 'C1',
      threadTs: '1.1',
      messageTs: '1.2',
      owner: 'U1',
      result: stored,
    });
    const back = await store.states.getState(key);
    expect(back?.expired).toBe(false);
    expect(back?.result).toEqual(stored);
    await store.threads.addTurn('C1', '1.1', {
      user: 'U1',
      question: stored.question,
      messageTs: '1.2',
      result: stored,
    });
    expect((await store.threads.getThread('C1', '1.1'))?.turns.map((t) => t.result)).toEqual([stored]);
    // a replica on other code wrote these: a bare result (the old form), a newer version, a result missing its answer
    const foreign = [
      JSON.stringify(stored),
      JSON.stringify({ version: 99, result: stored }),
      JSON.stringify({ version: 1, result: { ...stored, answer: undefined } }),
    ];
    for (const text of foreign) {
      store.db.prepare('UPDATE slack_states SET result = ? WHERE key = ?').run(text, key);
      const read = await store.states.getState(key);
      expect(read).toMatchObject({ key, channel: 'C1', expired: true, result: null });
      store.db
        .prepare('UPDATE slack_threads SET turns = ?')
        .run(JSON.stringify([{ user: 'U2', question: 'q', messageTs: '1.3', at: 1, result: text }]));
      expect((await store.threads.getThread('C1', '1.1'))?.turns).toEqual([]);
    }
  });

  it('upgrades a database made by the first schema without losing its feedback', async () => {
    const db = freshDb();
    db.exec(SLACK_MIGRATIONS[0]!);
    setMeta(db, 'slack_schema_version', '1');
    db.prepare(
      "INSERT INTO feedback (channel, thread_ts, message_ts, user, value, question, answer, evidence, created_at) VALUES ('C9', '9.1', '9.2', 'U9', 'helpful', 'q?', 'a', '[7]', 5)",
    ).run();
    db.prepare(
      "INSERT INTO slack_events (event_id, status, channel, owner, created_at, updated_at) VALUES ('EvOld', 'answered', 'C9', NULL, 1, 1)",
    ).run();
    const store = new SqliteConversations(db, { codec: RESULT_CODEC, ttlMs: 3600_000 });
    expect(await store.feedback.listFeedback()).toMatchObject([
      { channel: 'C9', messageTs: '9.2', user: 'U9', value: 'helpful', evidence: [7] },
    ]);
    expect(await store.events.eventStatus('EvOld')).toBe('answered');
    // and the upgraded tables take the new kinds of rows
    await store.feedback.addFeedback(feedback('C1:1.1:1.2:a', 'U9', 'helpful'));
    expect(await store.feedback.listFeedback()).toHaveLength(2);
    expect(await store.events.claimEvent('EvNew', 'C1', { text: 'hi' })).toEqual({
      status: 'new',
      messageTs: null,
      attempts: 1,
    });
  });

  it('lists as orphaned only the unanswered events of processes that are gone', async () => {
    const db = freshDb();
    const store = new SqliteConversations(db, { codec: RESULT_CODEC, ttlMs: 3600_000 });
    const payload = (id: string) => ({ channel: 'C1', user: 'U1', text: `question ${id}` });
    for (const id of ['EvDead', 'EvAlive', 'EvMine', 'EvDone']) await store.events.claimEvent(id, 'C1', payload(id));
    await store.events.finishEvent('EvDone', 'answered', '3.3');
    const owner = db.prepare('UPDATE slack_events SET owner = ? WHERE event_id = ?');
    owner.run(`${deadPid()}:gone`, 'EvDead');
    owner.run(`${process.ppid}:parent`, 'EvAlive');
    // the store that claimed them is answering them all
    expect(await store.events.orphanedEvents()).toEqual([]);
    // a store started afresh sees the dead process's event only: EvAlive's owner runs, EvMine is
    // this (live) process's, EvDone was answered
    expect(await new SqliteConversations(db, { codec: RESULT_CODEC, ttlMs: 3600_000 }).events.orphanedEvents()).toEqual(
      [{ eventId: 'EvDead', payload: payload('EvDead') }],
    );
    // hours later it is no longer answered, and a week later it is pruned
    const later = (ms: number) =>
      new SqliteConversations(db, { codec: RESULT_CODEC, ttlMs: 3600_000, now: () => Date.now() + ms });
    expect(await later(2 * 3600_000).events.orphanedEvents()).toEqual([]);
    await later(8 * 86400_000).prune();
    expect(await store.events.eventStatus('EvDead')).toBeNull();
  });
});

const pools: PgPool[] = [];
const schemas: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const p of pools.splice(0)) await p.end();
  for (const drop of schemas.splice(0)) await drop();
});

/** A state store factory on one fresh database of a backend (replicas share it). */
async function sharedLedger(backend: Backend): Promise<(now: () => number, owner: string) => SlackStateStore> {
  if (backend === 'sqlite') {
    const db = freshDb();
    return (now, owner) =>
      new SqliteConversations(db, { codec: RESULT_CODEC, ttlMs: 3600_000, now, owner, leaseMs: 60_000 });
  }
  const { url, drop } = await freshSchema('lease');
  schemas.push(drop);
  const pool = await openPool(url);
  pools.push(pool);
  return (now, owner) =>
    new PgConversations(pool, { codec: RESULT_CODEC, ttlMs: 3600_000, now, owner, leaseMs: 60_000 });
}

describe.each(BACKENDS)('event claims shared by replicas (leases, %s)', (backend) => {
  const it_ = skipBackend(backend) ? it.skip : it;
  const payload = { channel: 'C1', user: 'U1', text: 'question' };
  /** Two replicas on other machines sharing one database, on one clock. */
  async function replicas() {
    const make = await sharedLedger(backend);
    let t = 1_000_000;
    const clock = { now: () => t, advance: (ms: number) => (t += ms) };
    const ownerA = `host-a:${deadPid()}:a1`;
    const a = make(clock.now, ownerA);
    const b = make(clock.now, `host-b:${deadPid()}:b1`);
    /** replica a again, as a new process would see the ledger (nothing in flight) */
    const aAgain = () => make(clock.now, ownerA);
    return { a, b, clock, aAgain };
  }

  it_('answers an event once while its owner renews, whatever its pid looks like here', async () => {
    const { a, b, clock } = await replicas();
    expect((await a.events.claimEvent('Ev1', 'C1', payload)).status).toBe('new');
    // the owner's pid is dead on this machine, but it runs on another: only its lease counts
    expect((await b.events.claimEvent('Ev1', 'C1', payload)).status).toBe('duplicate');
    expect(await b.events.orphanedEvents()).toEqual([]);
    for (let i = 0; i < 5; i++) {
      clock.advance(20_000);
      await a.events.renewClaims();
      expect((await b.events.claimEvent('Ev1', 'C1', payload)).status).toBe('duplicate');
    }
    await a.events.finishEvent('Ev1', 'answered', '1.2');
    clock.advance(120_000);
    expect((await b.events.claimEvent('Ev1', 'C1', payload)).status).toBe('duplicate');
    expect(await b.events.orphanedEvents()).toEqual([]);
  });

  it_('lets another replica take over an event whose owner stopped renewing, once, reusing its message', async () => {
    const { a, b, clock, aAgain } = await replicas();
    await a.events.claimEvent('Ev2', 'C1', payload);
    await a.events.setEventMessage('Ev2', '2.5');
    clock.advance(59_000);
    expect(await b.events.orphanedEvents()).toEqual([]);
    clock.advance(2_000);
    // the lease lapsed: the sweep of the other replica finds it, and it claims it with the placeholder
    expect(await b.events.orphanedEvents()).toEqual([{ eventId: 'Ev2', payload }]);
    expect(await b.events.claimEvent('Ev2', 'C1', payload)).toEqual({ status: 'new', messageTs: '2.5', attempts: 2 });
    // the first owner's renewal no longer holds anything, and it cannot claim it back while b renews
    await a.events.renewClaims();
    clock.advance(30_000);
    await b.events.renewClaims();
    expect((await aAgain().events.claimEvent('Ev2', 'C1', payload)).status).toBe('duplicate');
    expect(await aAgain().events.orphanedEvents()).toEqual([]);
  });
});

describe.each(BACKENDS)('event claims across processes (%s)', (backend) => {
  const it_ = skipBackend(backend) ? it.skip : it;
  /** A module that opens the backend's ledger as `state`, in a process of its own. */
  async function opener(): Promise<string> {
    if (backend === 'sqlite') {
      const file = path.join(dir, `race-${n++}.db`);
      openDatabase(file).close();
      return `
      import { openDatabase } from ${JSON.stringify(path.join(ROOT, 'dist', 'store', 'sqlite', 'db.js'))};
      import { SqliteConversations } from ${JSON.stringify(path.join(ROOT, 'dist', 'store', 'sqlite', 'conversations.js'))};
      import { RESULT_CODEC } from ${JSON.stringify(path.join(ROOT, 'dist', 'slack', 'state', 'open.js'))};
      const state = new SqliteConversations(openDatabase(${JSON.stringify(file)}), { codec: RESULT_CODEC, ttlMs: 3600000 });`;
    }
    const { url, drop } = await freshSchema('race');
    schemas.push(drop);
    // the tables exist before the race starts (their migration is tested on its own)
    const pool = await openPool(url);
    await new PgConversations(pool, { codec: RESULT_CODEC, ttlMs: 3600_000 }).events.eventStatus('none');
    await pool.end();
    return `
      import { openPool } from ${JSON.stringify(path.join(ROOT, 'dist', 'store', 'pg', 'db.js'))};
      import { PgConversations } from ${JSON.stringify(path.join(ROOT, 'dist', 'store', 'pg', 'conversations.js'))};
      import { RESULT_CODEC } from ${JSON.stringify(path.join(ROOT, 'dist', 'slack', 'state', 'open.js'))};
      const state = new PgConversations(await openPool(${JSON.stringify(url)}), { codec: RESULT_CODEC, ttlMs: 3600000 });`;
  }

  it_(
    'gives each event to exactly one of two processes claiming the same ids at once',
    async () => {
      const ids = Array.from({ length: 300 }, (_, i) => `EvRace${i}`);
      const script = `${await opener()}
      const won = [];
      for (const id of ${JSON.stringify(ids)}) if ((await state.events.claimEvent(id, 'C1', { id })).status === 'new') won.push(id);
      process.stdout.write(JSON.stringify(won) + '\\n');
      // alive until told: a process that is gone leaves its claims to be taken over
      process.stdin.on('data', () => process.exit(0));`;
      const children: ReturnType<typeof spawn>[] = [];
      const run = () =>
        new Promise<string[]>((resolve, reject) => {
          const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
            stdio: ['pipe', 'pipe', 'pipe'],
          });
          children.push(child);
          let out = '';
          let err = '';
          child.stdout!.on('data', (d) => {
            out += String(d);
            if (out.endsWith('\n')) resolve(JSON.parse(out) as string[]);
          });
          child.stderr!.on('data', (d) => (err += String(d)));
          child.on('exit', (code) => reject(new Error(`claiming process ended early (${code}): ${err}`)));
        });
      const [first, second] = await Promise.all([run(), run()]).finally(() => {
        for (const c of children) c.stdin!.end('done\n');
      });
      // every id went to one process, none to both: both claimed while the other was alive
      expect([...first, ...second].sort()).toEqual([...ids].sort());
      expect(first.filter((id) => second.includes(id))).toEqual([]);
    },
    60_000,
  );
});

describe.each(BACKENDS)('feedback reasons (%s)', (backend) => {
  const it_ = skipBackend(backend) ? it.skip : it;
  it_(
    'keeps why an answer was not helpful on that feedback only, and forgets it when the person changes their mind',
    async () => {
      const store = (await sharedLedger(backend))(Date.now, 'host-a:1:a');
      await store.feedback.addFeedback(feedback('C1:1.1:1.2:a', 'U1', 'not_helpful'));
      await store.feedback.addFeedback(feedback('C1:1.1:1.2:a', 'U2', 'helpful'));
      expect(await store.feedback.setFeedbackReason('C1:1.1:1.2:a', 'U1', 'wrong')).toBe(true);
      // a helpful entry, or none at all, takes no reason
      expect(await store.feedback.setFeedbackReason('C1:1.1:1.2:a', 'U2', 'wrong')).toBe(false);
      expect(await store.feedback.setFeedbackReason('C1:1.1:1.2:a', 'U3', 'wrong')).toBe(false);
      const byUser = async () =>
        Object.fromEntries((await store.feedback.listFeedback()).map((r) => [r.user, r.reason]));
      expect(await byUser()).toEqual({ U1: 'wrong', U2: null });
      await store.feedback.addFeedback(feedback('C1:1.1:1.2:a', 'U1', 'helpful'));
      expect(await byUser()).toEqual({ U1: null, U2: null });
    },
  );
});

describe.each(BACKENDS)("each person's questions, for their Home tab (%s)", (backend) => {
  const it_ = skipBackend(backend) ? it.skip : it;
  it_('lists a person their own questions, newest first, with the answer and their feedback on it', async () => {
    let t = 1_000;
    const store = (await sharedLedger(backend))(() => ++t, 'host-a:1:a');
    const answered = result({ question: 'Which offset?' });
    const declined = { ...answered, answer: { ...answered.answer, value: null } };
    await store.threads.addTurn('C1', '5.1', {
      user: 'U1',
      question: 'Which offset?',
      messageTs: '5.2',
      result: answered,
    });
    await store.threads.addTurn('C1', '5.1', {
      user: 'U2',
      question: 'And at −40 °C?',
      messageTs: '5.3',
      result: declined,
    });
    await store.threads.addTurn('D1', '6.1', {
      user: 'U1',
      question: 'Who leads Falcon?',
      messageTs: '6.2',
      result: declined,
    });
    // a continued answer in the same message replaces the answer, not the question
    await store.threads.addTurn('D1', '6.1', {
      user: 'U1',
      question: 'Who leads Falcon?',
      messageTs: '6.2',
      result: answered,
    });
    await store.feedback.addFeedback({ ...feedback('k:5.2', 'U1', 'not_helpful'), channel: 'C1', messageTs: '5.2' });
    const mine = await store.threads.recentQuestions('U1', 10);
    expect(mine.map((q) => [q.channel, q.question, q.answer, q.feedback?.value ?? null])).toEqual([
      ['D1', 'Who leads Falcon?', answered.answer.value, null],
      ['C1', 'Which offset?', answered.answer.value, 'not_helpful'],
    ]);
    expect((await store.threads.recentQuestions('U2', 10)).map((q) => q.answer)).toEqual([null]);
    expect(await store.threads.recentQuestions('U3', 10)).toEqual([]);
    // everyone's questions since a time, with their askers, newest first: the gap report's input
    const all = await store.threads.questionsSince(0, 10);
    expect(all.map((q) => [q.user, q.channel, q.question, q.answer, q.feedback?.value ?? null])).toEqual([
      ['U1', 'D1', 'Who leads Falcon?', answered.answer.value, null],
      ['U2', 'C1', 'And at −40 °C?', null, null],
      ['U1', 'C1', 'Which offset?', answered.answer.value, 'not_helpful'],
    ]);
    expect(await store.threads.questionsSince(t + 1, 10)).toEqual([]);
  });
});
