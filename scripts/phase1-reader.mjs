// The phase-1 reader of scripts/train_reader.py, as committed at PHASE1_READER.commit: the file the
// later reader phases and the teamqa runs start from (scripts/train-reader.mjs, scripts/train-teamqa.mjs).
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

export const PHASE1_READER = {
  commit: 'efbd4e3',
  sha256: '52188fb656130229f2ee1f6fec8271bba21492afaf4f5bacba460bb10016048a',
};

/** The phase-1 reader as `out`/phase1.int8.onnx (git history keeps that exact file); `fail` says why not. */
export function phase1Reader(root, out, fail) {
  const file = path.join(out, 'phase1.int8.onnx');
  if (!fs.existsSync(file)) {
    const blob = spawnSync('git', ['show', `${PHASE1_READER.commit}:models/reader-minilm/model.int8.onnx`], {
      cwd: root,
      maxBuffer: 64 << 20,
    });
    if (blob.status !== 0) fail(`git show ${PHASE1_READER.commit}: the phase-1 reader is not in this clone's history`);
    fs.writeFileSync(file, blob.stdout);
  }
  const sha = createHash('sha256').update(fs.readFileSync(file)).digest('hex');
  if (sha !== PHASE1_READER.sha256) fail(`${file}: sha256 ${sha}, not the phase-1 reader's ${PHASE1_READER.sha256}`);
  return file;
}
