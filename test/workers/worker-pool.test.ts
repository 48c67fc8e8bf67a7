import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Core } from '../../src/core.js';
import { UserError } from '../../src/errors.js';
import type { EngineResult } from '../../src/engine/types.js';
import { BroadcastChannel } from 'node:worker_threads';
import { EnginePool, WorkerStopped } from '../../src/workers/worker-pool.js';
import { CRASH_CHANNEL } from '../../src/workers/worker-protocol.js';
import { silentLogger } from '../../src/log.js';
import { LOCAL } from '../../src/store/access.js';
import { sampleCore, tempDir } from '../helpers.js';

// The engine in worker threads (what `ragask serve` runs): the same answers as in this thread, this
// thread left free while they are computed, and a worker that dies mid-answer replaced.

const QUESTION = 'Which calibration offset applies at −20 °C to the temperature sensor used in Project Falcon?';
let core: Core;
let cleanup: () => Promise<void>;
let pool: EnginePool;

const sources = (r: EngineResult) => r.evidence.map((s) => s.citation.source);

/** setImmediate turns this thread gets while `work` runs: how free it is to acknowledge events. */
async function turnsDuring(work: () => Promise<unknown>): Promise<number> {
  let turns = 0;
  let done = false;
  const spin = async () => {
    while (!done) {
      await new Promise<void>((r) => setImmediate(r));
      turns++;
    }
  };
  const spinning = spin();
  await work();
  done = true;
  await spinning;
  return turns;
}

beforeAll(async () => {
  ({ core, cleanup } = await sampleCore());
  await core.store.index.flush();
  pool = await EnginePool.start({ config: core.config, size: 2, log: silentLogger });
}, 300_000);

afterAll(async () => {
  await pool?.close();
  await cleanup?.();
});

describe('EnginePool', () => {
  it('answers as the engine in this thread does, from its own models and store handles', async () => {
    const here = await core.engine.run(QUESTION, LOCAL);
    const there = await pool.run(QUESTION, LOCAL);
    expect(there.question).toBe(QUESTION);
    expect(there.hops.map((h) => h.query)).toEqual(here.hops.map((h) => h.query));
    expect(sources(there)).toEqual(sources(here));
    expect(there.answer.value).toBe(here.answer.value);
    // a follow-up and a resumed chain cross the thread boundary as plain data too
    const follow = await pool.followUp(there, 'And what is its operating range?', LOCAL);
    expect(follow.followUpOf).toBe(QUESTION);
    expect(follow.hops.length).toBeGreaterThan(0);
  }, 120_000);

  it('leaves this thread free while a question is answered', async () => {
    await pool.run(QUESTION, LOCAL);
    await core.engine.run(QUESTION, LOCAL);
    const inThread = await turnsDuring(() => core.engine.run(QUESTION, LOCAL));
    const pooled = await turnsDuring(() => pool.run(QUESTION, LOCAL));
    // in this thread, inference, SQLite and NLP run synchronously between the turns; in a worker the
    // thread turns freely the whole time (measured: 4 against about 70,000)
    expect(pooled).toBeGreaterThan(10 * Math.max(inThread, 10));
  }, 120_000);

  it('answers questions in parallel on its workers', async () => {
    const asked = [
      QUESTION,
      'Who leads the project whose drone lost telemetry on 2024-03-14?',
      'Which frequency band does the telemetry radio of Project Heron use?',
    ].map((q) => pool.run(q, LOCAL));
    // three at once on two workers: each answers one, the third waits for the first free
    expect(pool.load.queued).toBe(1);
    await expect
      .poll(() => pool.load.answering.map((a) => a.questions), { timeout: 60_000, interval: 5 })
      .toEqual([1, 1]);
    const results = await Promise.all(asked);
    expect(pool.load.queued).toBe(0);
    await expect.poll(() => pool.load.answering.map((a) => a.questions), { timeout: 10_000 }).toEqual([0, 0]);
    expect(results.map((r) => r.question)).toEqual([
      QUESTION,
      'Who leads the project whose drone lost telemetry on 2024-03-14?',
      'Which frequency band does the telemetry radio of Project Heron use?',
    ]);
  }, 120_000);

  it('passes a bad request back as the error the engine threw', async () => {
    const r = await pool.run(QUESTION, LOCAL);
    await expect(pool.resume(r, 99, LOCAL)).rejects.toThrow(RangeError);
  }, 120_000);

  it('answers a question whose worker dies mid-answer on another, once, and replaces the worker', async () => {
    const crashChannel = new BroadcastChannel(CRASH_CHANNEL);
    const busy = () => pool.load.answering.filter((a) => a.questions > 0);
    /** Once a worker other than `besides` is answering, that worker dies; returns its thread id. */
    const crash = async (besides?: number) => {
      const other = () => busy().find((a) => a.threadId !== besides);
      await expect.poll(() => other() !== undefined, { timeout: 60_000, interval: 1 }).toBe(true);
      const { threadId } = other()!;
      crashChannel.postMessage(threadId);
      return threadId;
    };
    // one crash: the question is asked again and answered
    const asked = pool.run(QUESTION, LOCAL);
    await crash();
    expect((await asked).question).toBe(QUESTION);
    await expect.poll(() => pool.size, { timeout: 60_000 }).toBe(2);
    // a question that ends the worker it is sent to, twice, is failed rather than passed on
    const poison = pool.run(QUESTION, LOCAL);
    const first = await crash();
    // its second try, on another worker
    await crash(first);
    await expect(poison).rejects.toThrow(WorkerStopped);
    crashChannel.close();
    await expect.poll(() => pool.size, { timeout: 60_000 }).toBe(2);
    expect((await pool.run(QUESTION, LOCAL)).question).toBe(QUESTION);
  }, 180_000);

  it('refuses to start on a store it cannot open, with the store error', async () => {
    const dataDir = tempDir();
    fs.writeFileSync(path.join(dataDir, 'ragask.db'), 'not a database, but long enough to have a header of its own');
    try {
      await expect(
        EnginePool.start({ config: { ...core.config, dataDir }, size: 1, log: silentLogger }),
      ).rejects.toThrow(UserError);
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  }, 120_000);
});
