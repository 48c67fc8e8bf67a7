import fs from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers.js';
import { deliver, eventBody } from '../support/slack-stand-in.js';
import { SECRET, blocksText, startHarness } from './harness.js';
import { FakeEngine } from './fake-engine.js';

const dir = tempDir();
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('duplicate deliveries across a restart', () => {
  it('does not answer again an event answered before the restart', async () => {
    const { body } = eventBody(
      {
        type: 'app_mention',
        user: 'U1',
        text: '<@UBOT> How long must the PM-5 warm up?',
        ts: '4000.0001',
        channel: 'C1',
        event_ts: '4000.0001',
      },
      'EvRestart1',
    );
    const first = await startHarness({ engine: new FakeEngine(), dir });
    await deliver(first.port, SECRET, body, 'application/json');
    const post = await first.fake.waitFor(() => first.fake.callsOf('chat.postMessage').find((c) => c.result));
    await first.fake.waitFor(() =>
      first.fake
        .callsOf('chat.update')
        .find((c) => c.args.ts === post.result!.ts && blocksText(c.args.blocks).includes('Confidence')),
    );
    await first.close();

    const second = await startHarness({ engine: new FakeEngine(), dir, ingestSample: false });
    const r = await deliver(second.port, SECRET, body, 'application/json', {
      'x-slack-retry-num': '1',
      'x-slack-retry-reason': 'timeout',
    });
    expect(r.status).toBe(200);
    // the retry was handled (as a duplicate of the answered event) and nothing was posted for it
    await second.slack.idle();
    expect(second.logs.some((l) => l.includes('duplicate delivery ignored'))).toBe(true);
    expect(second.fake.callsOf('chat.postMessage')).toHaveLength(0);
    await second.close();
  });
});
