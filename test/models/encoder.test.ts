import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Encoder, dot } from '../../src/models/encoder.js';
import { ROOT } from '../helpers.js';
import path from 'node:path';

const modelsDir = path.join(ROOT, 'models');

describe('Encoder on the real all-MiniLM-L6-v2', () => {
  let fp32: Encoder;
  let int8: Encoder;
  beforeAll(async () => {
    fp32 = await Encoder.load({ modelsDir, model: 'all-MiniLM-L6-v2', variant: 'fp32', threads: 1 });
    int8 = await Encoder.load({ modelsDir, model: 'all-MiniLM-L6-v2', variant: 'int8', threads: 1 });
  });
  afterAll(async () => {
    await fp32.release();
    await int8.release();
  });

  it('returns one L2-normalised 384-d vector per text, in input order', async () => {
    const texts = ['a much longer sentence about thermal sensors and their calibration offsets', 'short', 'medium length text here'];
    const vs = await fp32.encode(texts);
    expect(vs).toHaveLength(3);
    for (const v of vs) {
      expect(v).toHaveLength(384);
      expect(dot(v, v)).toBeCloseTo(1, 4);
    }
    // order is preserved although batching sorts by length
    const single = await fp32.encodeOne('short');
    expect(dot(single, vs[1]!)).toBeCloseTo(1, 4);
  });

  it('gives the same vector for a text alone and inside a padded batch', async () => {
    const alone = await fp32.encodeOne('calibration offset at minus twenty degrees');
    const [, inBatch] = await fp32.encode(['x', 'calibration offset at minus twenty degrees', 'a long long long long long long sentence to force padding of the others']);
    expect(dot(alone, inBatch!)).toBeGreaterThan(0.9999);
  });

  it('puts paraphrases closer than unrelated sentences (real weights, not random)', async () => {
    const [a, b, c] = await fp32.encode([
      'The sensor must be recalibrated every six months.',
      'Recalibrate the sensor twice a year.',
      'The cafeteria serves pasta on Fridays.',
    ]);
    expect(dot(a!, b!)).toBeGreaterThan(dot(a!, c!) + 0.3);
  });

  it('keeps the int8 variant close to fp32', async () => {
    const text = 'Project Falcon uses the KX-220 thermal sensor.';
    expect(dot(await fp32.encodeOne(text), await int8.encodeOne(text))).toBeGreaterThan(0.97);
  });

  it('truncates inputs longer than the model limit instead of failing', async () => {
    const before = fp32.stats.truncated;
    const v = await fp32.encodeOne('word '.repeat(2000));
    expect(v).toHaveLength(384);
    expect(fp32.stats.truncated).toBe(before + 1);
  });

  it('names the fetch command when the model is missing', async () => {
    await expect(Encoder.load({ modelsDir: '/nonexistent', model: 'all-MiniLM-L6-v2', variant: 'fp32', threads: 1 })).rejects.toThrow(/npm run models/);
  });
});
