/**
 * int8 models as every CPU computes them alike.
 *
 * `quantize_dynamic` writes signed int8 weights, and onnxruntime multiplies them with unsigned int8
 * activations (U8S8). On an x86 CPU without VNNI, its kernel adds pairs of those products in 16 bits
 * (AVX2's pmaddubsw), and a pair can saturate: the same reader then reads differently there (its
 * logits up to 0.66 apart on machine C, AVX2 only; docs/benchmarks-history.md, "int8 on CPUs without
 * VNNI"). With unsigned weights (U8U8) the kernel has no such sum. A signed weight w with zero point
 * z is the unsigned w + 128 with z + 128, the same numbers: each byte's top bit flipped. So on such a
 * CPU the model's MatMulInteger weights and zero points are flipped in memory before it loads.
 */
import fs from 'node:fs';
import { lazyPackage } from '../lazy-package.js';

/** protobufjs, loaded only where the weights are rewritten (a CPU without VNNI). */
const protobuf = lazyPackage<typeof import('protobufjs')>('protobufjs');

/** ONNX TensorProto data types (onnx.proto). */
const INT8 = 3;
const UINT8 = 2;
/** Field numbers of onnx.proto: ModelProto.graph; GraphProto.node, .initializer; NodeProto.input, .op_type; TensorProto.data_type, .int32_data, .name, .raw_data. */
const MODEL_GRAPH = 7;
const GRAPH_NODE = 1;
const GRAPH_INITIALIZER = 5;
const NODE_INPUT = 1;
const NODE_OP_TYPE = 4;
const TENSOR_DATA_TYPE = 2;
const TENSOR_INT32_DATA = 5;
const TENSOR_NAME = 8;
const TENSOR_RAW_DATA = 9;
const LENGTH_DELIMITED = 2;

/** One field of a protobuf message: its number, where it starts (its tag), and where its value stands (a length-delimited value's bytes). */
interface Field {
  no: number;
  tag: number;
  start: number;
  end: number;
  delimited: boolean;
}

/** The fields of the message in bytes [start, end), in order (protobufjs's wire reader). */
function fieldsOf(bytes: Uint8Array, start: number, end: number): Field[] {
  const reader = protobuf().Reader.create(bytes.subarray(0, end));
  reader.pos = start;
  const out: Field[] = [];
  while (reader.pos < end) {
    const at = reader.pos;
    const tag = reader.uint32();
    const delimited = (tag & 7) === LENGTH_DELIMITED;
    const length = delimited ? reader.uint32() : 0;
    const from = reader.pos;
    if (delimited) reader.pos += length;
    else reader.skipType(tag & 7);
    out.push({ no: tag >>> 3, tag: at, start: from, end: reader.pos, delimited });
  }
  return out;
}

const text = (bytes: Uint8Array, f: Field) => Buffer.from(bytes.buffer, bytes.byteOffset + f.start, f.end - f.start).toString('utf8');

/** The initializers MatMulInteger reads as its weights and their zero points (inputs 1 and 3); null where one lacks its zero point. */
function weightNames(bytes: Uint8Array, graph: Field[]): Set<string> | null {
  const names = new Set<string>();
  for (const node of graph.filter((f) => f.no === GRAPH_NODE)) {
    const fields = fieldsOf(bytes, node.start, node.end);
    const op = fields.find((f) => f.no === NODE_OP_TYPE);
    if (!op || text(bytes, op) !== 'MatMulInteger') continue;
    const inputs = fields.filter((f) => f.no === NODE_INPUT).map((f) => text(bytes, f));
    // without its zero point a flipped weight would be read as w + 128 around 0
    if (inputs.length < 4 || !inputs[3]) return null;
    names.add(inputs[1]!);
    names.add(inputs[3]!);
  }
  return names;
}

/** A length-delimited field: its tag and length as varints, then `value`. */
const delimitedField = (no: number, value: Uint8Array): Uint8Array[] => [
  protobuf().Writer.create().uint32((no << 3) | LENGTH_DELIMITED).uint32(value.length).finish(),
  value,
];

/** The fields written again in order, each as it was except those `replaced` gives a new value for. */
function rewritten(bytes: Uint8Array, fields: readonly Field[], replaced: ReadonlyMap<Field, Uint8Array>): Uint8Array {
  const parts: Uint8Array[] = [];
  for (const f of fields) {
    const value = replaced.get(f);
    parts.push(...(value ? delimitedField(f.no, value) : [bytes.subarray(f.tag, f.end)]));
  }
  return Buffer.concat(parts);
}

/** A copy of `src` with each byte's top bit flipped, four bytes at a time (a byte at a time took 0.4 s a start). */
export function topBitsFlipped(src: Uint8Array): Uint8Array {
  const out = Uint8Array.from(src);
  const words = out.length >>> 2;
  const quads = new Uint32Array(out.buffer, 0, words);
  for (let i = 0; i < words; i++) quads[i]! ^= 0x80808080;
  for (let i = words << 2; i < out.length; i++) out[i]! ^= 0x80;
  return out;
}

/**
 * An int8 TensorProto as uint8, each value + 128: raw bytes with their top bit flipped, or values
 * held as int32_data (as `quantize_dynamic` writes zero points) written as raw bytes. Null where the
 * tensor is not int8 or holds its values otherwise.
 */
function unsignedTensor(bytes: Uint8Array, tensor: Field): Uint8Array | null {
  const fields = fieldsOf(bytes, tensor.start, tensor.end);
  const type = fields.find((f) => f.no === TENSOR_DATA_TYPE);
  if (!type || type.delimited || bytes[type.start] !== INT8 || type.end - type.start !== 1) return null;
  const raw = fields.find((f) => f.no === TENSOR_RAW_DATA);
  const ints = fields.filter((f) => f.no === TENSOR_INT32_DATA);
  let values: Uint8Array;
  if (raw && !ints.length) values = topBitsFlipped(bytes.subarray(raw.start, raw.end));
  else if (!raw && ints.length && ints.every((f) => f.delimited)) {
    const out: number[] = [];
    for (const f of ints) {
      const reader = protobuf().Reader.create(bytes.subarray(f.start, f.end));
      while (reader.pos < reader.len) out.push(reader.int32() + 128);
    }
    values = Uint8Array.from(out);
  } else return null;
  const kept = fields.filter((f) => f !== type && f !== raw && !ints.includes(f));
  return Buffer.concat([
    rewritten(bytes, kept, new Map()),
    protobuf().Writer.create().uint32(TENSOR_DATA_TYPE << 3).uint32(UINT8).finish(),
    ...delimitedField(TENSOR_RAW_DATA, values),
  ]);
}

/**
 * The ONNX model `bytes` with its MatMulInteger weights and zero points unsigned, and how many
 * tensors changed; null when it has no int8 weights, or is not a model this can convert exactly.
 */
export function unsignedWeights(bytes: Uint8Array): { model: Uint8Array; tensors: number } | null {
  const top = fieldsOf(bytes, 0, bytes.length);
  const graphField = top.find((f) => f.no === MODEL_GRAPH);
  if (!graphField) return null;
  const graph = fieldsOf(bytes, graphField.start, graphField.end);
  const names = weightNames(bytes, graph);
  if (!names?.size) return null;
  const replaced = new Map<Field, Uint8Array>();
  for (const init of graph.filter((f) => f.no === GRAPH_INITIALIZER)) {
    const name = fieldsOf(bytes, init.start, init.end).find((f) => f.no === TENSOR_NAME);
    if (!name || !names.has(text(bytes, name))) continue;
    const tensor = unsignedTensor(bytes, init);
    if (!tensor) return null;
    replaced.set(init, tensor);
  }
  if (replaced.size !== names.size) return null;
  const model = rewritten(bytes, top, new Map([[graphField, rewritten(bytes, graph, replaced)]]));
  return { model, tensors: replaced.size };
}

/** Whether the CPU with these /proc/cpuinfo flags lacks VNNI (AVX-512 VNNI, AVX-VNNI or AMX): an x86 CPU then adds in 16 bits. */
export function u8s8Saturates(cpuinfo: string): boolean {
  const flags = new Set((/^flags\s*:(.*)$/m.exec(cpuinfo)?.[1] ?? '').trim().split(/\s+/));
  return flags.has('sse2') && !['avx512_vnni', 'avx_vnni', 'amx_int8'].some((f) => flags.has(f));
}

let thisCpu: boolean | undefined;

/** Whether this CPU's U8S8 kernel saturates: an x86-64 Linux CPU without VNNI. Where the flags cannot be read, no. */
function thisCpuSaturates(): boolean {
  if (thisCpu === undefined) {
    let info = '';
    try {
      if (process.arch === 'x64') info = fs.readFileSync('/proc/cpuinfo', 'utf8');
    } catch {
      // not Linux: the flags are not at hand, and the model loads as it was written
    }
    thisCpu = u8s8Saturates(info);
  }
  return thisCpu;
}

/**
 * What onnxruntime should load for the model file: the file itself, or, on a CPU whose U8S8 kernel
 * saturates, its bytes with unsigned weights (a model without int8 weights is loaded as it is).
 */
export function sessionSource(file: string, saturating = thisCpuSaturates()): string | Uint8Array {
  if (!saturating) return file;
  return unsignedWeights(fs.readFileSync(file))?.model ?? file;
}
