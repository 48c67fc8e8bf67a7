import fs from 'node:fs';
import path from 'node:path';
import * as ort from 'onnxruntime-node';
import { UserError } from '../errors.js';
import { sessionSource } from './int8-weights.js';

/** What `npm run models` writes beside each model (models/<name>/ragask-model.json). */
export interface ModelManifest {
  name: string;
  kind: 'sentence-embedding' | 'masked-lm' | 'reader';
  pooling?: 'mean' | 'cls';
  dimension?: number;
  maxLength?: number;
  variants?: Record<string, string>;
  source?: string;
  sha256: Record<string, string>;
}

export interface ResolvedModel {
  dir: string;
  file: string;
  manifest: ModelManifest;
}

/** The encoders `npm run models -- --encoder=<name>` makes on request (scripts/fetch-models.mjs). */
const OPTIONAL_ENCODERS: ReadonlySet<string> = new Set(['all-mpnet-base-v2']);

/** How to fetch a missing model: the default ones come with `npm run models`, an optional encoder by name. */
const fetchHint = (name: string) =>
  OPTIONAL_ENCODERS.has(name)
    ? `run \`npm run models -- --encoder=${name}\` to make it`
    : 'run `npm run models` to fetch it';

export function readManifest(modelsDir: string, name: string): ModelManifest {
  const dir = path.join(modelsDir, name);
  const manifestPath = path.join(dir, 'ragask-model.json');
  if (!fs.existsSync(manifestPath)) {
    throw new UserError(`model ${name} is not in ${dir}: ${fetchHint(name)}`, 'model_missing');
  }
  try {
    return JSON.parse(fs.readFileSync(manifestPath, 'utf8')) as ModelManifest;
  } catch (e) {
    throw new UserError(`${manifestPath}: unreadable (${(e as Error).message}); run \`npm run models -- --force\``, 'model_missing');
  }
}

/** The ONNX file of `name` (variant fp32 or int8 for embedders); a clear error if anything is missing. */
export function resolveModel(modelsDir: string, name: string, variant?: string): ResolvedModel {
  const manifest = readManifest(modelsDir, name);
  const dir = path.join(modelsDir, name);
  let fileName = 'model.onnx';
  if (manifest.variants) {
    const v = variant ?? 'fp32';
    const f = manifest.variants[v];
    if (!f) throw new UserError(`model ${name} has no ${v} variant (has ${Object.keys(manifest.variants).join(', ')}); set RAGASK_MODEL_VARIANT to one of them`, 'model_missing');
    fileName = f;
  }
  const file = path.join(dir, fileName);
  if (!fs.existsSync(file)) throw new UserError(`${file} is missing: ${fetchHint(name)}`, 'model_missing');
  return { dir, file, manifest };
}

/**
 * A CPU session for one model file, run sequentially on `threads` intra-op threads. A file that
 * onnxruntime cannot load is a UserError naming it, with `remedy` (how to restore that model).
 */
export async function cpuSession(file: string, threads: number, remedy: string): Promise<ort.InferenceSession> {
  try {
    // int8 weights unsigned where this CPU's signed kernel saturates (int8-weights.ts)
    const source = sessionSource(file);
    const options: ort.InferenceSession.SessionOptions = {
      intraOpNumThreads: threads,
      interOpNumThreads: 1,
      executionMode: 'sequential',
      graphOptimizationLevel: 'all',
      executionProviders: ['cpu'],
    };
    return await (typeof source === 'string'
      ? ort.InferenceSession.create(source, options)
      : ort.InferenceSession.create(source, options));
  } catch (e) {
    throw new UserError(`${file}: onnxruntime cannot load it (${(e as Error).message.split('\n')[0]}); ${remedy}`, 'model_missing');
  }
}
