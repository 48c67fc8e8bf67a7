/** Float32 vectors as SQLite BLOBs (little-endian float32, as the platform stores them). */
export function vectorToBlob(v: Float32Array): Buffer {
  return Buffer.from(v.buffer, v.byteOffset, v.byteLength);
}

export function blobToVector(b: Buffer): Float32Array {
  // copy: a Buffer from SQLite may not be 4-byte aligned
  const out = new Float32Array(b.byteLength / 4);
  new Uint8Array(out.buffer).set(b);
  return out;
}
