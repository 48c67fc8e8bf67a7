import { afterEach, describe, expect, it } from 'vitest';
import { writerReady } from '../../src/cli/commands/doctor-writer.js';
import { loadConfig } from '../../src/config.js';
import { writerOf } from '../../src/core.js';
import { isWritten } from '../../src/engine/writer/index.js';
import type { Snippet } from '../../src/engine/types.js';
import { createLogger, silentLogger } from '../../src/log.js';
import { FakeLlm } from '../support/llm-stand-in.js';

// The checker's support threshold is measured per encoder (each has its own cosine scale): the writer
// judges with the one measured for the encoder in use, and is off, with one error line, for an
// encoder none was measured for.

const EVIDENCE: Snippet[] = [
  {
    chunkId: 1,
    docId: 1,
    windowId: null,
    text: 'The relay flushes its buffer every 30 s.',
    score: 1,
    citation: { document: 'Relay station', source: '/d/relay.md', heading_path: [], page: null, url: null },
  },
];

/** An encoder whose written sentence stands at cosine 0.62 to every cited one. */
const encoder = {
  encode: async (texts: readonly string[]) =>
    texts.map((_, i) => (i === 0 ? new Float32Array([1, 0]) : new Float32Array([0.62, Math.sqrt(1 - 0.62 ** 2)]))),
};

const running: FakeLlm[] = [];
afterEach(async () => {
  for (const l of running.splice(0)) await l.stop();
});

async function writeWith(encoderName: string) {
  const llm = new FakeLlm([{ reply: 'The relay flushes its buffer every 30 s [1].' }]);
  await llm.start();
  running.push(llm);
  const settings = { url: llm.url, model: llm.model, apiKey: null, timeoutMs: 10_000, maxTokens: 100 };
  const writer = writerOf({ writer: settings, model: encoderName }, encoder, silentLogger);
  return (
    writer && (await writer.write({ question: 'How often is the buffer flushed?', evidence: EVIDENCE, previous: null }))
  );
}

describe("the writer's support threshold, by encoder", () => {
  it('keeps a sentence at cosine 0.62 under MiniLM (0.6) and drops it under mpnet (0.65)', async () => {
    const mini = await writeWith('all-MiniLM-L6-v2');
    expect(mini && isWritten(mini) && mini.sentences.map((s) => [s.kept, s.reason])).toEqual([[true, null]]);
    const mpnet = await writeWith('all-mpnet-base-v2');
    expect(mpnet && !isWritten(mpnet) && mpnet.failed).toBe('nothing_kept');
    expect(mpnet && !isWritten(mpnet) && mpnet.sentences!.map((s) => [s.kept, s.reason])).toEqual([
      [false, 'not_supported'],
    ]);
  });

  it('is off for an encoder none was measured for, and serve says so in one error line naming RAGASK_MODEL', async () => {
    expect(await writeWith('my-encoder')).toBeNull();
    const llm = new FakeLlm([{ reply: 'OK' }]);
    await llm.start();
    running.push(llm);
    const lines: string[] = [];
    const log = createLogger({
      level: 'info',
      destination: { write: (l: string) => lines.push(l) } as unknown as NodeJS.WritableStream,
    });
    const config = loadConfig({
      RAGASK_WRITER_URL: llm.url,
      RAGASK_WRITER_MODEL: llm.model,
      RAGASK_MODEL: 'my-encoder',
    });
    expect(await writerReady(config, log)).toBe(false);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(
      'writer checker: no support threshold is measured for the encoder my-encoder (RAGASK_MODEL); set RAGASK_MODEL to all-MiniLM-L6-v2 or all-mpnet-base-v2',
    );
  });
});
