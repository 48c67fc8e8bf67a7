/**
 * A wiki export given as the .zip its wiki downloads (Confluence's space export, Notion's "Markdown &
 * CSV", whose large exports are a zip of Part-N.zip files): unpacked to a folder of its own under the
 * system's temporary folder, named by the zip's path, so that a re-ingest of a newer download meets
 * the same documents again (unchanged ones are skipped, vanished ones pruned).
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { lazyPackage } from '../../lazy-package.js';
import { errorMessage } from '../../errors.js';

/** A zip input unpacked: the folder to read it from, or why it cannot be read. */
type Unzipped = { zip: string; dir: string } | { zip: string; reason: string };

/** Writes every entry of a zip under `dir`, a nested zip's entries too; never outside `dir`. */
/** jszip: the well-kept pure-JS zip reader (mammoth's own). */
const jszip = lazyPackage<typeof import('jszip')>('jszip');

async function extract(bytes: Uint8Array, dir: string): Promise<void> {
  const zip = await jszip().loadAsync(bytes);
  for (const entry of Object.values(zip.files)) {
    if (entry.dir) continue;
    const target = path.resolve(dir, entry.name);
    if (!target.startsWith(dir + path.sep))
      throw new Error(`entry ${JSON.stringify(entry.name)} points outside the archive`);
    const data = await entry.async('uint8array');
    if (entry.name.toLowerCase().endsWith('.zip')) await extract(data, dir);
    else {
      fs.mkdirSync(path.dirname(target), { recursive: true });
      fs.writeFileSync(target, data);
    }
  }
}

/** The folder an export's documents sit in: the unpacked folder, or the one folder it holds (the space key's). */
function exportRoot(dir: string): string {
  const entries = fs.readdirSync(dir, { withFileTypes: true }).filter((e) => !e.name.startsWith('.'));
  const only = entries.length === 1 && entries[0]!.isDirectory() ? entries[0]!.name : null;
  return only && fs.existsSync(path.join(dir, only, 'index.html')) ? path.join(dir, only) : dir;
}

/** Unpacks a .zip input (read whole: an export is documents, not a dump); a bad zip is a reason, not a throw. */
async function unzipExport(zip: string): Promise<Unzipped> {
  const abs = path.resolve(zip);
  const dir = path.join(os.tmpdir(), 'ragask-exports', createHash('sha256').update(abs).digest('hex').slice(0, 16));
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  try {
    await extract(fs.readFileSync(abs), dir);
  } catch (e) {
    fs.rmSync(dir, { recursive: true, force: true });
    return {
      zip: abs,
      reason: `not a readable zip (${errorMessage(e)}); download the export again, or unzip it and ingest the folder`,
    };
  }
  return { zip: abs, dir: exportRoot(dir) };
}

/**
 * The inputs with every .zip among them unpacked: the folder read in its place, and which zip each
 * such folder stands for (its documents are stored under "<zip>!/<path in the zip>").
 */
export async function unzipInputs(
  inputs: readonly string[],
): Promise<{ inputs: string[]; aliases: Map<string, string>; failures: { file: string; reason: string }[] }> {
  const out: string[] = [];
  const aliases = new Map<string, string>();
  const failures: { file: string; reason: string }[] = [];
  for (const input of inputs) {
    if (!input.toLowerCase().endsWith('.zip') || !fs.existsSync(input) || !fs.statSync(input).isFile()) {
      out.push(input);
      continue;
    }
    const r = await unzipExport(input);
    if ('reason' in r) failures.push({ file: input, reason: r.reason });
    else {
      aliases.set(r.dir, r.zip);
      out.push(r.dir);
    }
  }
  return { inputs: out, aliases, failures };
}
