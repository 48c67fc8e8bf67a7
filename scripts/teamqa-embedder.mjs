// The sentence encoder fine-tuned on teamqa, judged leave one fold out (`npm run train-teamqa --
// --embedder`). For each fold, scripts/train_embedder.py trains the encoder on the other fold's
// questions against the windows ragask stored for them (models/embed-teamqa-<fold>, never
// committed); the fold's sets are then read with it and their candidate lines dumped. The line
// ranker is fitted on those held-out readings leave one set out (`ragask calibrate --lines
// --from-dump`), beside the same fit on today's encoder's readings: OUT/embedder.md.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

/**
 * @param {object} o
 * @param {string} o.root the checkout; @param {string} o.out the pipeline's folder; @param {string} o.teamqa
 * @param {Record<string, string[]>} o.folds; @param {string} o.python the export venv's python
 * @param {(args: string[], env?: object) => void} o.ragask; @param {(msg: string) => never} o.fail
 */
export function measureEmbedder({ root, out, teamqa, folds, python, upstream, ragask, fail }) {
  const all = Object.values(folds).flat();
  const store = (set) => path.join(out, 'stores', set);
  const datasets = (sets) => sets.flatMap((s) => ['--dataset', path.join(teamqa, s)]);
  // today's encoder's stores (the windows trained on) and its readings of every set
  for (const set of all)
    if (!fs.existsSync(path.join(store(set), 'ragask.db')))
      ragask(['eval', '--dataset', path.join(teamqa, set), '--modes', 'bm25', '--limit', '1', '--store', store(set)]);
  const base = path.join(out, 'lines-base.jsonl');
  if (!fs.existsSync(base)) ragask(['calibrate', '--lines', ...datasets(all), '--dump', base]);
  const dumps = [];
  for (const [fold, held] of Object.entries(folds)) {
    const name = `embed-teamqa-${fold}`;
    const model = path.join(root, 'models', name);
    if (!fs.existsSync(path.join(model, 'ragask-model.json'))) {
      const sets = all
        .filter((s) => !held.includes(s))
        .flatMap((s) => ['--set', `${s}=${path.join(store(s), 'ragask.db')}`]);
      const args = [
        path.join(root, 'scripts', 'train_embedder.py'),
        '--upstream',
        upstream,
        '--out',
        model,
        '--teamqa',
        teamqa,
      ];
      const r = spawnSync(python, [...args, ...sets], { stdio: 'inherit' });
      if (r.status !== 0) fail(`scripts/train_embedder.py (${fold}) exited with ${r.status}; rerun to train it again`);
    }
    const dump = path.join(out, `lines-${name}.jsonl`);
    if (!fs.existsSync(dump))
      ragask(['calibrate', '--lines', ...datasets(held), '--dump', dump], { RAGASK_MODEL: name });
    dumps.push(dump);
  }
  const report = (files) => {
    const r = spawnSync(
      process.execPath,
      [path.join(root, 'bin', 'ragask.js'), 'calibrate', '--lines', '--from-dump', ...files, ...datasets(all)],
      { encoding: 'utf8' },
    );
    if (r.status !== 0) fail(`calibrate --from-dump failed: ${r.stderr}`);
    return r.stdout.split('\n\nfit on all')[0];
  };
  const md = `# The encoder fine-tuned on teamqa, leave one fold out\n\n## Today's encoder\n\n${report([base])}\n\n## Fine-tuned, each set read by the fold's encoder that never saw it\n\n${report(dumps)}\n`;
  fs.writeFileSync(path.join(out, 'embedder.md'), md);
  process.stdout.write(md);
}
