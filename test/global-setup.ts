import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    /** A PostgreSQL with pgvector for the tests, or '' (the setup says why on stderr). */
    pgUrl: string;
  }
}

/** `npm test` fetches the models in its pretest step; running vitest directly needs them too. */
function checkModels(): void {
  const models = path.resolve('models');
  for (const name of ['all-MiniLM-L6-v2', 'test-tiny-mlm']) {
    if (!fs.existsSync(path.join(models, name, 'ragask-model.json'))) {
      throw new Error(`models/${name} is missing: run \`npm run models -- --test-mlm\` (npm test does it for you)`);
    }
  }
}

async function reachable(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query('CREATE EXTENSION IF NOT EXISTS vector');
  } finally {
    await client.end();
  }
}

/**
 * The PostgreSQL backend's tests need a server with pgvector: RAGASK_TEST_DATABASE_URL, or else a
 * private one started here from pgserver (scripts/test-postgres.mjs) and stopped at the end. Only
 * when neither works are those tests skipped, with the reason.
 */
async function startPostgres(): Promise<{ url: string; skip: string; stop: () => void }> {
  const given = process.env.RAGASK_TEST_DATABASE_URL;
  if (given) {
    await reachable(given);
    return { url: given, skip: '', stop: () => undefined };
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ragask-test-pg-'));
  // pgserver runs the server as its own user when started by root: it must reach the folder
  fs.chmodSync(dir, 0o755);
  // @ts-expect-error: a plain ESM script without types
  const pgserver = (await import('../scripts/test-postgres.mjs')) as {
    startServer(dir: string): string;
    stopServer(dir: string): void;
  };
  try {
    const url = pgserver.startServer(dir);
    await reachable(url);
    return { url, skip: '', stop: () => pgserver.stopServer(dir) };
  } catch (e) {
    fs.rmSync(dir, { recursive: true, force: true });
    const reason = `no PostgreSQL with pgvector: RAGASK_TEST_DATABASE_URL is not set and pgserver could not start one (${(e as Error).message.split('\n')[0]})`;
    process.stderr.write(`\n[ragask tests] skipping the PostgreSQL backend's tests: ${reason}\n\n`);
    return { url: '', skip: reason, stop: () => undefined };
  }
}

export default async function setup(project: TestProject): Promise<() => void> {
  checkModels();
  const postgres = await startPostgres();
  project.provide('pgUrl', postgres.url);
  return () => postgres.stop();
}
