import Bottleneck from 'bottleneck';
import { describe, expect, it } from 'vitest';
import { emptyReservoir } from '../../src/slack/tier-pause.js';

/** A tier's bucket as SlackApi builds one: five calls, one more every 10 ms. */
const bucket = (): Bottleneck =>
  new Bottleneck({
    reservoir: 5,
    reservoirIncreaseAmount: 1,
    reservoirIncreaseInterval: 10,
    reservoirIncreaseMaximum: 5,
  });

describe('a tier paused by 429s', () => {
  it('is empty, not below zero, when two 429s are handled at once', async () => {
    const tier = new Bottleneck({ reservoir: 5 });
    await Promise.all([emptyReservoir(tier), emptyReservoir(tier)]);
    expect(await tier.currentReservoir()).toBe(0);
    await tier.stop();
  });

  it('refills after it was emptied', async () => {
    const tier = bucket();
    await emptyReservoir(tier);
    expect(await tier.currentReservoir()).toBe(0);
    // bottleneck refills on its 250 ms heartbeat: wait for the bucket to hold a call again
    const deadline = Date.now() + 10_000;
    let left = 0;
    while (left === 0 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 50));
      left = (await tier.currentReservoir()) ?? 0;
    }
    expect(left).toBeGreaterThan(0);
    await tier.stop();
  });

  it('leaves a limiter without a bucket unpaced', async () => {
    const perChannel = new Bottleneck({ maxConcurrent: 1 });
    await emptyReservoir(perChannel);
    expect(await perChannel.currentReservoir()).toBe(null);
    await perChannel.stop();
  });
});
