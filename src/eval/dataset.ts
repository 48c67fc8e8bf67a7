import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { UserError } from '../errors.js';

export interface EvalQuestion {
  id: string;
  question: string;
  answers: string[];
  /** Supporting passages: corpus ids (corpus.jsonl datasets) or paths relative to the folder. */
  supporting: string[];
  hops: number | null;
  /** The kind of question, where the dataset says (teamdocs: factoid, bridge, procedure, unanswerable). */
  type: string | null;
}

export interface EvalDataset {
  dir: string;
  name: string;
  /** corpus.jsonl of {id,title,text}, or a folder of documents. */
  kind: 'jsonl' | 'folder';
  /** What to ingest. */
  inputs: string[];
  questions: EvalQuestion[];
  /** Hash of everything ingested and asked: the key of the cached store. */
  contentHash: string;
  /** Maps a stored document's source key to the dataset's passage key. */
  passageOf(source: string): string;
}

function hashFiles(files: string[]): string {
  const h = createHash('sha256');
  for (const f of files.sort()) {
    h.update(f);
    h.update(fs.readFileSync(f));
  }
  return h.digest('hex');
}

function listFolder(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      if (e.name.startsWith('.') && e.name !== '.ragaskignore') continue;
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.isFile()) out.push(p);
    }
  };
  walk(dir);
  return out;
}

/** A question whose answer is in no document: any short answer given to it is wrong. */
export const isUnanswerable = (q: Pick<EvalQuestion, 'answers' | 'supporting'>): boolean =>
  q.answers.length === 0 && q.supporting.length === 0;

/** The questions of a questions.jsonl file; one clear error per bad line. */
function readQuestions(qFile: string): EvalQuestion[] {
  const questions: EvalQuestion[] = [];
  fs.readFileSync(qFile, 'utf8')
    .split('\n')
    .forEach((raw, i) => {
      const line = raw.trim();
      if (!line) return;
      let o: Record<string, unknown>;
      try {
        o = JSON.parse(line) as Record<string, unknown>;
      } catch (e) {
        throw new UserError(`${qFile}:${i + 1}: not valid JSON (${(e as Error).message}); fix or remove the line`);
      }
      const bad = (what: string) =>
        new UserError(
          `${qFile}:${i + 1}: ${what}; expected {"id", "question", "answers": [..], "supporting": [..], "hops"}`,
        );
      if (typeof o.question !== 'string' || !o.question.trim()) throw bad('missing "question"');
      if (!Array.isArray(o.supporting)) throw bad('missing "supporting" list');
      const answers = Array.isArray(o.answers) ? o.answers.map(String) : [];
      // an unanswerable question (its answer is in no document) has neither answers nor supporting passages
      if (o.supporting.length === 0 && answers.length > 0)
        throw bad('"supporting" is empty but "answers" is not (an unanswerable question has both empty)');
      questions.push({
        id: String(o.id ?? `q${i + 1}`),
        question: o.question,
        answers,
        supporting: o.supporting.map(String),
        hops: typeof o.hops === 'number' ? o.hops : null,
        type: typeof o.type === 'string' && o.type.trim() ? o.type.trim() : null,
      });
    });
  if (questions.length === 0) throw new UserError(`${qFile}: no questions`);
  return questions;
}

/**
 * Reads a dataset directory in the shared format; one clear error per bad line. With `questions`,
 * other questions over the same documents are asked instead (questions written over a set's corpus):
 * the store stays the dataset's own, keyed by its folder's content.
 */
export function loadDataset(dirArg: string, opts: { questions?: string } = {}): EvalDataset {
  const dir = path.resolve(dirArg);
  if (!fs.existsSync(dir) || !fs.statSync(dir).isDirectory())
    throw new UserError(`--dataset ${dirArg}: no such folder`);
  const qFile = path.join(dir, 'questions.jsonl');
  if (!fs.existsSync(qFile))
    throw new UserError(
      `${qFile} is missing: a dataset folder needs questions.jsonl ({id, question, answers, supporting, hops} per line)`,
    );
  if (opts.questions && !fs.existsSync(opts.questions))
    throw new UserError(
      `--questions ${opts.questions}: no such file; give a questions.jsonl written over the dataset's documents`,
    );
  const questions = readQuestions(opts.questions ? path.resolve(opts.questions) : qFile);

  const corpus = path.join(dir, 'corpus.jsonl');
  if (fs.existsSync(corpus)) {
    const prefix = `${corpus}#`;
    return {
      dir,
      name: path.basename(dir),
      kind: 'jsonl',
      inputs: [corpus],
      questions,
      contentHash: hashFiles([corpus, qFile]),
      passageOf: (source) => (source.startsWith(prefix) ? source.slice(prefix.length) : source),
    };
  }
  // A folder with a corpus/ keeps its documents there; the rest (README, VERIFY with every question's gold
  // answer, LICENSE) describes the set, and ingesting it would let the reader read the answers.
  const corpusDir = path.join(dir, 'corpus');
  const docs = fs.existsSync(corpusDir) && fs.statSync(corpusDir).isDirectory() ? corpusDir : dir;
  return {
    dir,
    name: path.basename(dir),
    kind: 'folder',
    inputs: [docs],
    questions,
    contentHash: hashFiles(docs === dir ? listFolder(dir) : [...listFolder(docs), qFile]),
    passageOf: (source) => path.relative(dir, source).split(path.sep).join('/'),
  };
}
