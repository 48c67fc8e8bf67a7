import fs from 'node:fs';
import path from 'node:path';
import * as ort from 'onnxruntime-node';
import { describe, expect, it } from 'vitest';
import { topBitsFlipped, u8s8Saturates, unsignedWeights } from '../../src/models/int8-weights.js';
import { cpuSession } from '../../src/models/registry.js';

const MODELS = path.resolve(import.meta.dirname, '..', '..', 'models');
const READER = path.join(MODELS, 'reader-minilm', 'model.int8.onnx');

/**
 * "Which calibration offset applies at −20 °C to the temperature sensor used in Project Falcon?"
 * against "Temperature: -20 °C; Offset: +0.35 °C; Uncertainty (k=2): 0.04 °C", as the MiniLM
 * tokenizer of transformers writes it.
 */
const IDS = [
  101, 2029, 10250, 12322, 8156, 16396, 12033, 2012, 1597, 11387, 6362, 2000, 1996, 4860, 13617, 2109, 1999, 2622,
  11684, 1029, 102, 4860, 1024, 1011, 2322, 6362, 1025, 16396, 1024, 1009, 1014, 1012, 3486, 6362, 1025, 12503, 1006,
  1047, 1027, 1016, 1007, 1024, 1014, 1012, 5840, 6362, 102,
];
const QUESTION_TOKENS = 21;
/**
 * The shipped reader's first logits on IDS with unsigned weights, from Python's onnxruntime on a model
 * converted by onnx's numpy_helper (not by this code): integer matmuls without saturation, the same
 * on every CPU. With its signed weights machine C (AVX2, no VNNI) gave start logits up to 0.66 away.
 */
const START = [-0.62684, -1.7356, 0.06969, -3.0119, -3.62883, -2.2036, -4.27517, -2.87913];
const TYPE = [2.79152, -4.5295, -4.52709, 3.48992];

async function logits(session: ort.InferenceSession): Promise<{ start: number[]; type: number[] }> {
  const n = IDS.length;
  const tensor = (v: number[]) => new ort.Tensor('int64', BigInt64Array.from(v.map(BigInt)), [1, n]);
  const out = await session.run({
    input_ids: tensor(IDS),
    attention_mask: tensor(IDS.map(() => 1)),
    token_type_ids: tensor(IDS.map((_, i) => (i < QUESTION_TOKENS ? 0 : 1))),
  });
  return {
    start: [...(out.start_logits!.data as Float32Array).slice(0, 8)],
    type: [...(out.type_logits!.data as Float32Array)],
  };
}

const expectClose = (got: number[], want: number[]) => {
  for (const [i, x] of got.entries()) expect(x).toBeCloseTo(want[i]!, 2);
};

describe('int8 weights on CPUs whose signed kernel saturates', () => {
  it('tells such a CPU by its flags', () => {
    expect(u8s8Saturates('processor\t: 0\nflags\t\t: fpu sse2 avx avx2 fma\n')).toBe(true);
    expect(u8s8Saturates('')).toBe(false);
    expect(u8s8Saturates('flags\t\t: fpu sse2 avx2 avx512f avx512bw avx512_vnni\n')).toBe(false);
    expect(u8s8Saturates('flags\t\t: fpu sse2 avx2 avx_vnni\n')).toBe(false);
    expect(u8s8Saturates('model name\t: some ARM core\n')).toBe(false);
  });

  it("unsigns the reader's 38 weight matrices and their zero points, and reads as the reference does", async () => {
    const converted = unsignedWeights(fs.readFileSync(READER));
    expect(converted?.tensors).toBe(76);
    const session = await ort.InferenceSession.create(converted!.model, { intraOpNumThreads: 1 });
    const got = await logits(session);
    expectClose(got.start, START);
    expectClose(got.type, TYPE);
  });

  it("loads the reader through cpuSession with the reference's logits on this CPU, whichever it is", async () => {
    const got = await logits(await cpuSession(READER, 1, 'restore it'));
    expectClose(got.start, START);
    expectClose(got.type, TYPE);
  });

  it('flips the top bit of every byte, a word at a time and the tail alone, from any offset', () => {
    const bytes = Uint8Array.from([9, 0x00, 0x7f, 0x80, 0xff, 0x01, 0xfe]);
    expect([...topBitsFlipped(bytes.subarray(1))]).toEqual([0x80, 0xff, 0x00, 0x7f, 0x81, 0x7e]);
    expect([...bytes]).toEqual([9, 0x00, 0x7f, 0x80, 0xff, 0x01, 0xfe]);
  });

  it('leaves a model without int8 weights alone', () => {
    expect(unsignedWeights(fs.readFileSync(path.join(MODELS, 'test-tiny-mlm', 'model.onnx')))).toBeNull();
  });
});
