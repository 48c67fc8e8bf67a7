import fs from 'node:fs';
import path from 'node:path';
import { rng } from './rng.js';

/**
 * Filler for corpus-scale benchmarks: Wikipedia-style passages that stand beside an evaluation
 * corpus and make the store 10k, 50k or 100k windows large, so the same questions can be timed
 * against a growing corpus. Deterministic (the seeded mulberry32 the reranker trains with), so every run builds the same stores.
 *
 * Source: the contexts of the reader training sets (`<shared>/reader-*`; HotpotQA, 2Wiki, SQuAD,
 * NQ), about 10k distinct passages. Past those, a passage is re-made from the sentences of three
 * passages (its own first), under its title with a numeral ("Inna (2)"): new windows with the
 * vocabulary, entities and term statistics of real text, never a copy of an existing window.
 * Passages whose title names a document of the evaluation corpus are left out, so a filler never
 * stands for a supporting passage.
 */
export interface FillerPassage {
  id: string;
  title: string;
  text: string;
}

/** Recipe version: part of the key of a kept scale store (a changed recipe builds new stores). */
export const FILLER_RECIPE = 1;

const sentencesOf = (text: string) =>
  text.split(/(?<=[.!?]["”’)]?)\s+(?=["“(]?\p{Lu})/u).filter((s) => s.trim().length > 0);

/** Distinct passages of the reader sets under `sharedDir`, in a seeded order, without the excluded titles. */
export function loadFillerPool(sharedDir: string, excludeTitles: ReadonlySet<string>, seed = 13): FillerPassage[] {
  const dirs = fs.existsSync(sharedDir)
    ? fs
        .readdirSync(sharedDir)
        .filter((d) => d.startsWith('reader-'))
        .sort()
    : [];
  const seen = new Set<string>();
  const pool: FillerPassage[] = [];
  for (const d of dirs) {
    const file = path.join(sharedDir, d, 'reader.jsonl');
    if (!fs.existsSync(file)) continue;
    for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
      if (!line.trim()) continue;
      const row = JSON.parse(line) as { contexts?: { title?: string; text?: string }[] };
      for (const c of row.contexts ?? []) {
        const title = (c.title ?? '').replace(/_/g, ' ').trim();
        const text = (c.text ?? '').trim();
        if (!title || text.length < 80 || excludeTitles.has(title.toLowerCase())) continue;
        const key = `${title}\u0000${text.slice(0, 120)}`;
        if (seen.has(key)) continue;
        seen.add(key);
        pool.push({ id: '', title, text });
      }
    }
  }
  const rand = rng(seed);
  for (let i = pool.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [pool[i], pool[j]] = [pool[j]!, pool[i]!];
  }
  return pool.map((p, i) => ({ ...p, id: `filler-${i}` }));
}

/** The k-th filler passage: the pool's own passages first, then re-made ones (see above). */
export function fillerPassage(pool: readonly FillerPassage[], k: number): FillerPassage {
  if (pool.length === 0) throw new Error('filler pool is empty');
  if (k < pool.length) return pool[k]!;
  const base = pool[k % pool.length]!;
  const round = Math.floor(k / pool.length);
  const rand = rng(k * 7919 + 17);
  const others = [pool[Math.floor(rand() * pool.length)]!, pool[Math.floor(rand() * pool.length)]!];
  const own = sentencesOf(base.text);
  const borrowed = others.flatMap((o) => sentencesOf(o.text));
  const out: string[] = [own[0] ?? base.text];
  // about as long as the base passage: its own sentences interleaved with borrowed ones
  for (let i = 1; out.join(' ').length < base.text.length && (i < own.length || borrowed.length); i++) {
    if (i < own.length && rand() < 0.5) out.push(own[i]!);
    else if (borrowed.length) out.push(borrowed.splice(Math.floor(rand() * borrowed.length), 1)[0]!);
    else out.push(own[i]!);
  }
  return { id: `filler-${k}`, title: `${base.title} (${round + 1})`, text: out.join(' ') };
}

/** Writes filler passages [from, to) as a corpus .jsonl ({id, title, text} per line). */
export function writeFiller(file: string, pool: readonly FillerPassage[], from: number, to: number): void {
  const lines: string[] = [];
  for (let k = from; k < to; k++) lines.push(JSON.stringify(fillerPassage(pool, k)));
  fs.writeFileSync(file, `${lines.join('\n')}\n`);
}

/**
 * Questions of the reader sets under `sharedDir` (`<shared>/reader-*`), `n` of them in a seeded order:
 * the queries an approximate index is measured on against exact search (real questions, not windows).
 */
export function loadScaleQueries(sharedDir: string, n: number, seed = 29): string[] {
  const dirs = fs.existsSync(sharedDir) ? fs.readdirSync(sharedDir).filter((d) => d.startsWith('reader-')) : [];
  const questions = new Set<string>();
  for (const d of dirs.sort()) {
    const file = path.join(sharedDir, d, 'reader.jsonl');
    if (!fs.existsSync(file)) continue;
    for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
      const q = line.trim() ? String((JSON.parse(line) as { question?: string }).question ?? '').trim() : '';
      if (q) questions.add(q);
    }
  }
  const all = [...questions];
  const rand = rng(seed);
  for (let i = all.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [all[i], all[j]] = [all[j]!, all[i]!];
  }
  return all.slice(0, n);
}
