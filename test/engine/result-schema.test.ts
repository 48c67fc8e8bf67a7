import { describe, expect, it } from 'vitest';
import { decodeResult, encodeResult, RESULT_VERSION } from '../../src/engine/result-schema.js';
import { hop, result, snippet } from '../fixtures/results.js';

describe('a stored engine result', () => {
  it('comes back as it went in, with its version', () => {
    const r = result(
      {
        hops: [hop(1, [snippet(1, 'a')]), hop(2, [snippet(2, 'b')], { bridgeFrom: { sourceDocId: 1, linkDocId: 2 } })],
        incomplete: true,
        written: {
          model: 'm',
          ms: 12,
          failed: null,
          sentences: [
            { text: 'a [1].', citations: [1], kept: false, reason: 'not_supported', detail: null, support: 0.41 },
          ],
        },
      },
      { leads: [snippet(3, 'c')] },
    );
    const text = encodeResult(r);
    expect(JSON.parse(text)).toMatchObject({ version: RESULT_VERSION });
    expect(decodeResult(text)).toEqual(r);
  });

  it('is refused, not cast, when it is of another version, malformed, or not JSON', () => {
    const r = result();
    expect(decodeResult(JSON.stringify(r))).toBeNull();
    expect(decodeResult(JSON.stringify({ version: RESULT_VERSION + 1, result: r }))).toBeNull();
    expect(
      decodeResult(JSON.stringify({ version: RESULT_VERSION, result: { ...r, stopReason: 'gave_up' } })),
    ).toBeNull();
    expect(decodeResult(JSON.stringify({ version: RESULT_VERSION, result: { ...r, hops: [{ hop: 1 }] } }))).toBeNull();
    expect(decodeResult('{"version": 1, "resu')).toBeNull();
  });
});
