// A private PostgreSQL 16 with pgvector for the tests, from the PyPI package pgserver (it bundles
// both and starts a server on a Unix socket in a folder of its own). Used by the tests' global setup
// when RAGASK_TEST_DATABASE_URL is not set; also runnable by hand:
//   node scripts/test-postgres.mjs start <dir>   prints the URL
//   node scripts/test-postgres.mjs stop <dir>    stops the server and deletes the folder
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const VENV = path.join(ROOT, '.venv-pg');
const PGSERVER = 'pgserver==0.1.4';
const python = path.join(VENV, 'bin', 'python');

/** The venv with pgserver, made once (a few seconds from a PyPI mirror). */
export function ensureVenv(log = (m) => process.stderr.write(`${m}\n`)) {
  if (fs.existsSync(python)) {
    try {
      execFileSync(python, ['-c', 'import pgserver'], { stdio: 'ignore' });
      return python;
    } catch {
      // a half-made venv: made again below
    }
  }
  log(`[postgres] installing ${PGSERVER} (PostgreSQL 16 + pgvector) into .venv-pg/`);
  fs.rmSync(VENV, { recursive: true, force: true });
  execFileSync('python3', ['-m', 'venv', VENV], { stdio: ['ignore', 'ignore', 'inherit'] });
  execFileSync(path.join(VENV, 'bin', 'pip'), ['install', '--quiet', '--disable-pip-version-check', PGSERVER], {
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  return python;
}

const quiet = { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, PYTHONWARNINGS: 'ignore' } };

/** Starts a server with its data in `dir` (kept running after this returns); returns its URL. */
export function startServer(dir) {
  const py = ensureVenv();
  const out = execFileSync(
    py,
    ['-c', 'import sys, pgserver; print(pgserver.get_server(sys.argv[1], cleanup_mode=None).get_uri())', dir],
    quiet,
  )
    .toString()
    .trim()
    .split('\n')
    .at(-1);
  if (!out?.startsWith('postgresql://')) throw new Error(`pgserver printed no URL: ${out}`);
  return out;
}

/** Stops the server of `dir` and deletes its folder. */
export function stopServer(dir) {
  if (!fs.existsSync(python)) return;
  execFileSync(
    python,
    ['-c', "import sys, pgserver; pgserver.get_server(sys.argv[1], cleanup_mode='delete')", dir],
    quiet,
  );
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [cmd, dir] = process.argv.slice(2);
  if (!dir || !['start', 'stop'].includes(cmd)) {
    process.stderr.write('usage: node scripts/test-postgres.mjs start|stop <dir>\n');
    process.exit(2);
  }
  if (cmd === 'start') process.stdout.write(`${startServer(path.resolve(dir))}\n`);
  else stopServer(path.resolve(dir));
}
