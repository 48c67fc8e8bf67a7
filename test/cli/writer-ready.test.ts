import { describe, expect, it } from 'vitest';
import { writerReady } from '../../src/cli/commands/doctor-writer.js';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/log.js';
import { FakeLlm } from '../support/llm-stand-in.js';

// `ragask serve` with a writer checks it at start: a wrong URL, model or key is one error line, and
// ragask serves without the writer rather than not at all.

function logged() {
  const lines: string[] = [];
  const log = createLogger({
    level: 'info',
    destination: { write: (l: string) => lines.push(l) } as unknown as NodeJS.WritableStream,
    secrets: ['sk-ready-3'],
  });
  return { lines, log };
}

describe('the writer at start', () => {
  it('is used when its endpoint, model and a round trip answer', async () => {
    const llm = new FakeLlm([{ reply: 'OK' }]);
    await llm.start();
    try {
      const { lines, log } = logged();
      const config = loadConfig({ RAGASK_WRITER_URL: llm.url, RAGASK_WRITER_MODEL: llm.model });
      expect(await writerReady(config, log)).toBe(true);
      expect(lines).toEqual([]);
    } finally {
      await llm.stop();
    }
  });

  it('is left out, in one error line naming the setting to fix, when its endpoint does not answer', async () => {
    const { lines, log } = logged();
    const config = loadConfig({
      RAGASK_WRITER_URL: 'http://127.0.0.1:9/v1',
      RAGASK_WRITER_MODEL: 'm',
      RAGASK_WRITER_API_KEY: 'sk-ready-3',
    });
    expect(await writerReady(config, log)).toBe(false);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /writer endpoint: http:\/\/127\.0\.0\.1:9\/v1: .*check RAGASK_WRITER_URL.*serving without the writer/,
    );
    expect(lines[0]).not.toContain('sk-ready-3');
    expect(await writerReady(loadConfig({}), log)).toBe(false);
  });
});
