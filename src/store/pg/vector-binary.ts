/** pgvector's and PostgreSQL's binary forms of vectors, read and written as bytes. */

/**
 * A vector from pgvector's binary form (vector_send: dimension and a reserved word as int16, then
 * float4s, big-endian), read as bytes instead of parsing hundreds of decimals from its text form.
 */
export function vectorFromBinary(bytes: Buffer): Float32Array {
  const dim = bytes.readUInt16BE(0);
  const out = new Float32Array(dim);
  for (let i = 0; i < dim; i++) out[i] = bytes.readFloatBE(4 + 4 * i);
  return out;
}

/** PostgreSQL's type OID of float4 (real). */
const FLOAT4_OID = 700;

/**
 * The vectors of a write as one PostgreSQL float4[] in its binary form (node-postgres sends a Buffer
 * as binary): dimensions, flags, element type, length and lower bound, then each float as its length
 * and 4 big-endian bytes. As text, every digit of every vector was formatted and then escaped in
 * JavaScript: a quarter of a first load's time, most of it in the garbage collector.
 */
export function float4ArrayBinary(vectors: readonly Float32Array[], dimension: number): Buffer {
  // the SQL cuts the floats into vectors by the dimension: one of another length would shift the rest
  const wrong = vectors.find((v) => v.length !== dimension);
  if (wrong) throw new Error(`a vector of ${wrong.length} dimensions, where the store holds ${dimension}`);
  const count = vectors.length * dimension;
  const out = Buffer.allocUnsafe(20 + 8 * count);
  out.writeInt32BE(1, 0);
  out.writeInt32BE(0, 4);
  out.writeInt32BE(FLOAT4_OID, 8);
  out.writeInt32BE(count, 12);
  out.writeInt32BE(1, 16);
  let at = 20;
  for (const v of vectors)
    for (const x of v) {
      out.writeInt32BE(4, at);
      out.writeFloatBE(x, at + 4);
      at += 8;
    }
  return out;
}

/** SQL for the `t.n`-th (1-based) vector of a write: `floats` is the parameter holding float4ArrayBinary of them, `dim` their dimension's. */
export function vectorAt(floats: string, dim: string): string {
  return `((${floats}::real[])[((t.n - 1) * ${dim}::int + 1)::int : (t.n * ${dim}::int)::int])::vector`;
}
