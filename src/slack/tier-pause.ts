import type Bottleneck from 'bottleneck';

/** Each limiter's emptying in progress: they run one after the other. */
const emptying = new WeakMap<Bottleneck, Promise<void>>();

/**
 * Empties a tier's token bucket after a 429, so that the whole tier waits for its refill. Emptyings
 * of one limiter run one after the other: two 429s handled together used to read the same count and
 * subtract it twice, leaving the bucket that far below zero, and the tier stalled for minutes while it
 * refilled one call per interval. Not `updateSettings({ reservoir: 0 })`: in bottleneck 2 that stops
 * the bucket's refill timer for good. A limiter without a bucket (per-channel posts) is left as it is.
 */
export function emptyReservoir(limiter: Bottleneck): Promise<void> {
  // best effort: a failed emptying (a shared Redis gone) must not stop the next one, nor go unhandled
  const next = (emptying.get(limiter) ?? Promise.resolve()).then(() => drain(limiter)).catch(() => undefined);
  emptying.set(limiter, next);
  return next;
}

async function drain(limiter: Bottleneck): Promise<void> {
  const left = await limiter.currentReservoir();
  if (left === null || left <= 0) return;
  const after = await limiter.incrementReservoir(-left);
  // a call that took a token between the read and the subtraction leaves the bucket below zero
  if (after !== null && after !== undefined && after < 0) await limiter.incrementReservoir(-after);
}
