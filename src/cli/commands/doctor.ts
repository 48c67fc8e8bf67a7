import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import * as ort from 'onnxruntime-node';
import { checkSlackConfig, ConfigError, loadConfig, type Config, type SettingName } from '../../config.js';
import { errorMessage } from '../../errors.js';
import { readManifest, resolveModel } from '../../models/registry.js';
import { getMeta, openDatabase, SCHEMA_VERSION } from '../../store/db.js';
import { HnswIndex } from '../../store/hnsw.js';
import { storeHealth } from '../../store/store.js';
import { storeLocation } from '../../store/open.js';
import type { CliContext } from '../program.js';

interface Check {
  name: string;
  ok: boolean;
  detail: string;
  fix?: string;
}

function sha256File(file: string): string {
  return createHash('sha256').update(fs.readFileSync(file)).digest('hex');
}

async function checkModel(config: Config, name: string, variant: string | undefined, checks: Check[], fix = 'run `npm run models -- --force`'): Promise<void> {
  try {
    const manifest = readManifest(config.modelsDir, name);
    const dir = path.join(config.modelsDir, name);
    const bad = Object.entries(manifest.sha256).filter(([f, h]) => !fs.existsSync(path.join(dir, f)) || sha256File(path.join(dir, f)) !== h);
    if (bad.length) {
      checks.push({ name: `model ${name}`, ok: false, detail: `${bad.map(([f]) => f).join(', ')} missing or not matching the sha256 in ragask-model.json`, fix });
      return;
    }
    const { file } = resolveModel(config.modelsDir, name, variant);
    const session = await ort.InferenceSession.create(file, { intraOpNumThreads: 1 });
    await session.release();
    checks.push({
      name: `model ${name}${variant ? ` (${variant})` : ''}`,
      ok: true,
      detail: `${Object.keys(manifest.sha256).length} files match their sha256; onnxruntime loads ${path.basename(file)}`,
    });
  } catch (e) {
    checks.push({ name: `model ${name}`, ok: false, detail: errorMessage(e), fix });
  }
}

/** The PostgreSQL backend: reachable, pgvector 0.5 or newer, schema and model as this ragask expects. */
async function checkPgStore(config: Config, checks: Check[]): Promise<void> {
  const where = storeLocation(config);
  try {
    const { pgHealth } = await import('../../store/pg-store.js');
    const h = await pgHealth(config.databaseUrl!);
    const [major, minor] = (h.pgvector ?? '0.0').split('.').map(Number);
    if (!h.pgvector || major! * 100 + minor! < 5)
      checks.push({
        name: 'store',
        ok: false,
        detail: `${where}: PostgreSQL ${h.server}, pgvector ${h.pgvector ?? 'not installed'}`,
        fix: 'install pgvector 0.5 or newer on the server (CREATE EXTENSION vector)',
      });
    else
      checks.push({ name: 'store', ok: true, detail: `${where}: PostgreSQL ${h.server}, pgvector ${h.pgvector}, schema ${JSON.stringify(h.schema)}, ${h.documents} documents, ${h.windows} windows` });
    const want = `${config.model}/${config.modelVariant}`;
    if (h.model && h.windows > 0 && h.model !== want)
      checks.push({
        name: 'model ↔ store',
        ok: false,
        detail: `store embedded with ${h.model}, settings select ${want}`,
        fix: 'run `npx ragask reindex`, or set RAGASK_MODEL / RAGASK_MODEL_VARIANT back',
      });
  } catch (e) {
    checks.push({ name: 'store', ok: false, detail: errorMessage(e), fix: 'check RAGASK_DATABASE_URL and that the server runs, or unset it to use the embedded store' });
  }
}

function checkStore(config: Config, checks: Check[]): void {
  const dbFile = path.join(config.dataDir, 'ragask.db');
  const rebuild = 'move the file away and re-ingest your sources (`npx ragask ingest <paths>`), or restore it from a backup';
  if (!fs.existsSync(dbFile)) {
    checks.push({ name: 'store', ok: true, detail: `${dbFile} does not exist yet (it is created by the first ingest)` });
    return;
  }
  let db;
  try {
    db = openDatabase(dbFile, { readonly: true });
  } catch (e) {
    checks.push({ name: 'store', ok: false, detail: errorMessage(e), fix: rebuild });
    return;
  }
  try {
    const { schemaVersion: version, integrity, orphanChunks, orphanWindows, emptyDocs, ftsGap, documents: docs, windows } = storeHealth(db);
    const problems: string[] = [];
    if (integrity.join() !== 'ok') problems.push(`SQLite quick_check: ${integrity.slice(0, 3).join('; ')}`);
    if (version !== SCHEMA_VERSION) problems.push(`schema version ${version}, this ragask expects ${SCHEMA_VERSION} (opening it for writing migrates it)`);
    if (orphanChunks + orphanWindows) problems.push(`${orphanChunks} chunks and ${orphanWindows} windows without a parent`);
    if (emptyDocs) problems.push(`${emptyDocs} documents without chunks`);
    if (ftsGap) problems.push(`${ftsGap} chunks missing from the full-text index`);
    checks.push(
      problems.length
        ? { name: 'store', ok: false, detail: problems.join('; '), fix: rebuild }
        : { name: 'store', ok: true, detail: `${dbFile}: integrity ok, schema ${version}, ${docs} documents, ${windows} windows` },
    );

    const model = getMeta(db, 'embedding_model');
    const want = `${config.model}/${config.modelVariant}`;
    if (model && windows > 0 && model !== want)
      checks.push({
        name: 'model ↔ store',
        ok: false,
        detail: `store embedded with ${model}, settings select ${want}`,
        fix: 'run `npx ragask reindex`, or set RAGASK_MODEL / RAGASK_MODEL_VARIANT back',
      });
    const dim = Number(getMeta(db, 'embedding_dimension') ?? 384);
    const idx = HnswIndex.inspect(db, path.join(config.dataDir, 'index.hnsw'), { dimension: dim, model: model ?? want, params: config.hnsw });
    if (idx.problem)
      checks.push({
        name: 'index ↔ store',
        ok: windows === 0,
        detail: `${idx.problem}; it is rebuilt from SQLite on the next start`,
        fix: 'nothing to do, or run `npx ragask stats` to rebuild it now',
      });
    else if (idx.size + idx.behind < windows && idx.behind === 0)
      checks.push({
        name: 'index ↔ store',
        ok: false,
        detail: `index holds ${idx.size} vectors, store ${windows} windows`,
        fix: 'delete data/index.hnsw*; it is rebuilt from SQLite on the next start',
      });
    else
      checks.push({ name: 'index ↔ store', ok: true, detail: `index loads; ${idx.size} vectors${idx.behind ? `, ${idx.behind} store changes to replay on next open` : ', in step with the store'}` });
  } finally {
    db.close();
  }
}

async function checkSlack(config: Config, online: boolean, checks: Check[]): Promise<void> {
  try {
    checkSlackConfig(config);
  } catch (e) {
    const lines = e instanceof ConfigError ? e.lines : [errorMessage(e)];
    checks.push({ name: 'slack settings', ok: false, detail: lines.join(' | '), fix: 'only needed for `npm start`; see manifest.yml and .env.example' });
    return;
  }
  checks.push({
    name: 'slack settings',
    ok: true,
    detail: `${config.slack.mode === 'http' ? `HTTP mode on ${config.slack.host}:${config.slack.port}, signing secret set` : 'Socket Mode, app token set'}; bot token set; API ${config.slack.apiUrl}`,
  });
  if (!online) return;
  try {
    const res = await fetch(`${config.slack.apiUrl}auth.test`, { method: 'POST', headers: { authorization: `Bearer ${config.slack.botToken}` }, signal: AbortSignal.timeout(5000) });
    const body = (await res.json()) as { ok: boolean; error?: string; team?: string; user?: string };
    checks.push(
      body.ok
        ? { name: 'slack connectivity', ok: true, detail: `auth.test ok: ${body.user} in ${body.team}` }
        : { name: 'slack connectivity', ok: false, detail: `auth.test: ${body.error}`, fix: 'check SLACK_BOT_TOKEN (reinstall the app if it was revoked)' },
    );
  } catch (e) {
    checks.push({ name: 'slack connectivity', ok: false, detail: `cannot reach ${config.slack.apiUrl} (${errorMessage(e)})`, fix: 'check the network, or RAGASK_SLACK_API_URL' });
  }
}

export function register(program: Command, ctx: CliContext): void {
  program
    .command('doctor')
    .description('check config, model files and hashes, store integrity, index/store agreement, and Slack settings')
    .option('--online', 'also call Slack (auth.test) with the bot token')
    .action(async (opts: { online?: boolean }, cmd: Command) => {
      const checks: Check[] = [];
      const globals = cmd.optsWithGlobals() as { dataDir?: string };
      let config: Config | null = null;
      try {
        config = loadConfig(process.env, globals.dataDir ? ({ RAGASK_DATA_DIR: globals.dataDir } as Partial<Record<SettingName, unknown>>) : {}, { features: ['slack'] });
        checks.push({ name: 'config', ok: true, detail: 'every setting valid' });
      } catch (e) {
        checks.push({ name: 'config', ok: false, detail: e instanceof ConfigError ? e.lines.join(' | ') : errorMessage(e), fix: 'fix the named settings (see .env.example)' });
      }
      if (config) {
        await checkModel(config, config.model, config.modelVariant, checks);
        if (config.mlmModel) await checkModel(config, config.mlmModel, undefined, checks);
        await checkModel(config, config.readerModel, config.readerVariant, checks, 'restore it with `git checkout models/reader-minilm`, or rebuild it with `npm run train-reader`');
        if (config.databaseUrl) await checkPgStore(config, checks);
        else checkStore(config, checks);
        await checkSlack(config, !!opts.online, checks);
      }
      for (const c of checks) ctx.out(`${c.ok ? '✓' : '✗'} ${c.name}: ${c.detail}${!c.ok && c.fix ? `\n    fix: ${c.fix}` : ''}`);
      const failed = checks.filter((c) => !c.ok && c.name !== 'slack settings').length;
      ctx.out(failed ? `\n${failed} problem(s) found.` : '\nAll checks passed.');
      if (failed) process.exitCode = 1;
    });
}
