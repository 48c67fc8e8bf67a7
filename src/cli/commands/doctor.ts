import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import * as ort from 'onnxruntime-node';
import { checkSlackConfig, ConfigError, loadConfig, type Config } from '../../config.js';
import { errorMessage } from '../../errors.js';
import { readManifest, resolveModel } from '../../models/registry.js';
import { inspectStore } from '../../store/health.js';
import { storeSettingsOf } from '../../core.js';
import type { HealthCheck } from '../../store/types.js';
import type { CliContext } from '../context.js';
import { writerChecks } from './doctor-writer.js';
import type { SettingName } from '../../settings.js';

type Check = HealthCheck;

function sha256File(file: string): string {
  return createHash('sha256').update(fs.readFileSync(file)).digest('hex');
}

async function checkModel(
  config: Config,
  name: string,
  variant: string | undefined,
  checks: Check[],
  fix = 'run `npm run models -- --force`',
): Promise<void> {
  try {
    const manifest = readManifest(config.modelsDir, name);
    const dir = path.join(config.modelsDir, name);
    const bad = Object.entries(manifest.sha256).filter(
      ([f, h]) => !fs.existsSync(path.join(dir, f)) || sha256File(path.join(dir, f)) !== h,
    );
    if (bad.length) {
      checks.push({
        name: `model ${name}`,
        ok: false,
        detail: `${bad.map(([f]) => f).join(', ')} missing or not matching the sha256 in ragask-model.json`,
        fix,
      });
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

async function checkSlack(config: Config, online: boolean, checks: Check[]): Promise<void> {
  try {
    checkSlackConfig(config);
  } catch (e) {
    const lines = e instanceof ConfigError ? e.lines : [errorMessage(e)];
    checks.push({
      name: 'slack settings',
      ok: false,
      detail: lines.join(' | '),
      fix: 'only needed for `npm start`; see manifest.yml and .env.example',
    });
    return;
  }
  checks.push({
    name: 'slack settings',
    ok: true,
    detail: `${config.slack.mode === 'http' ? `HTTP mode on ${config.slack.host}:${config.slack.port}, signing secret set` : 'Socket Mode, app token set'}; bot token set; API ${config.slack.apiUrl}`,
  });
  if (!online) return;
  try {
    const res = await fetch(`${config.slack.apiUrl}auth.test`, {
      method: 'POST',
      headers: { authorization: `Bearer ${config.slack.botToken}` },
      signal: AbortSignal.timeout(5000),
    });
    const body = (await res.json()) as { ok: boolean; error?: string; team?: string; user?: string };
    checks.push(
      body.ok
        ? { name: 'slack connectivity', ok: true, detail: `auth.test ok: ${body.user} in ${body.team}` }
        : {
            name: 'slack connectivity',
            ok: false,
            detail: `auth.test: ${body.error}`,
            fix: 'check SLACK_BOT_TOKEN (reinstall the app if it was revoked)',
          },
    );
  } catch (e) {
    checks.push({
      name: 'slack connectivity',
      ok: false,
      detail: `cannot reach ${config.slack.apiUrl} (${errorMessage(e)})`,
      fix: 'check the network, or RAGASK_SLACK_API_URL',
    });
  }
}

export function register(program: Command, ctx: CliContext): void {
  program
    .command('doctor')
    .description(
      'check config, model files and hashes, store integrity, index/store agreement, Slack settings and the optional writer',
    )
    .option('--online', 'also call Slack (auth.test) with the bot token')
    .action(async (opts: { online?: boolean }, cmd: Command) => {
      const checks: Check[] = [];
      const globals = cmd.optsWithGlobals() as { dataDir?: string };
      let config: Config | null = null;
      try {
        config = loadConfig(
          process.env,
          globals.dataDir ? ({ RAGASK_DATA_DIR: globals.dataDir } as Partial<Record<SettingName, unknown>>) : {},
          { features: ['slack'] },
        );
        checks.push({ name: 'config', ok: true, detail: 'every setting valid' });
      } catch (e) {
        checks.push({
          name: 'config',
          ok: false,
          detail: e instanceof ConfigError ? e.lines.join(' | ') : errorMessage(e),
          fix: 'fix the named settings (see .env.example)',
        });
      }
      if (config) {
        await checkModel(config, config.model, config.modelVariant, checks);
        if (config.mlmModel) await checkModel(config, config.mlmModel, undefined, checks);
        await checkModel(
          config,
          config.readerModel,
          config.readerVariant,
          checks,
          'restore it with `git checkout models/reader-minilm`, or rebuild it with `npm run train-reader`',
        );
        checks.push(...(await inspectStore(storeSettingsOf(config), `${config.model}/${config.modelVariant}`)));
        await checkSlack(config, !!opts.online, checks);
        checks.push(...(await writerChecks(config)));
      }
      for (const c of checks)
        ctx.out(`${c.ok ? '✓' : '✗'} ${c.name}: ${c.detail}${!c.ok && c.fix ? `\n    fix: ${c.fix}` : ''}`);
      const failed = checks.filter((c) => !c.ok && c.name !== 'slack settings').length;
      ctx.out(failed ? `\n${failed} problem(s) found.` : '\nAll checks passed.');
      if (failed) process.exitCode = 1;
    });
}
