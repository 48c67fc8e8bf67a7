import { describe, expect, it } from 'vitest';
import type { AnswerWriter } from '../../src/engine/writer/index.js';
import type { WrittenAnswer } from '../../src/engine/writer/types.js';
import { createLogger } from '../../src/log.js';
import type { SlackApi } from '../../src/slack/api.js';
import { WrittenReply } from '../../src/slack/written-reply.js';
import { result } from '../fixtures/results.js';

// A burst of answers: the writer writes one at a time with a few waiting, and past those an answer
// stays extractive (one log line each) instead of queueing without end.

describe('WrittenReply under a burst', () => {
  it('writes one at a time, keeps four waiting, and leaves the rest extractive', async () => {
    const started: string[] = [];
    const api = {
      startStream: async (a: { thread_ts: string }) => {
        started.push(a.thread_ts);
        return `s${started.length}`;
      },
      appendStream: async () => undefined,
      stopStream: async () => undefined,
      update: async () => undefined,
    } as unknown as SlackApi;
    const release: (() => void)[] = [];
    const writer: AnswerWriter = {
      model: 'm',
      write: () =>
        new Promise<WrittenAnswer>((resolve) =>
          release.push(() => resolve({ model: 'm', ms: 1, text: 'x [1].', sentences: [] })),
        ),
    };
    const lines: string[] = [];
    const log = createLogger({
      level: 'info',
      destination: { write: (l: string) => lines.push(l) } as unknown as NodeJS.WritableStream,
    });
    const reply = new WrittenReply({ api, writer, log });
    const origin = (n: number) => ({ channel: 'C1', user: 'U1', threadTs: `t${n}`, isDM: false });
    const streams = [1, 2, 3, 4, 5, 6, 7].map((n) => reply.stream(origin(n), result({ question: `q${n}` })));
    await expect.poll(() => lines.filter((l) => l.includes('the writer is busy')).length).toBe(2);
    await expect.poll(() => started).toEqual(['t1']);
    // each write that ends lets the next waiting one start, in order
    for (let done = 1; done <= 5; done++) {
      await expect.poll(() => release.length).toBe(1);
      release.shift()!();
      await expect.poll(() => started.length).toBe(Math.min(done + 1, 5));
    }
    await Promise.all(streams);
    expect(started).toEqual(['t1', 't2', 't3', 't4', 't5']);
  });
});
