/**
 * The gap report for the documents' owners: the questions ragask could not answer (no definite
 * answer, or an answer its asker marked not helpful), grouped by topic with the sentence encoder,
 * each group with its count, a few of its questions and the documents that come closest (what is
 * nearly there). Grouping is average-linkage agglomerative clustering on the questions' cosine: it
 * needs no number of topics up front, and a question unlike any other stays a group of its own.
 */
import type { Store } from '../store/interfaces.js';

/** A question as the report reads it: its words, where it was asked, and why it is a gap. */
export interface GapQuestion {
  question: string;
  channel: string;
  user: string;
  askedAt: number;
  why: 'no definite answer' | 'marked not helpful';
}

/** A topic the documents do not answer well. */
export interface GapGroup {
  count: number;
  /** Up to EXAMPLES of its questions, newest first. */
  examples: string[];
  /** The documents retrieval finds closest to the group's questions. */
  closest: { title: string; source: string; url: string | null }[];
  questions: GapQuestion[];
}

/** Groups merge while their questions' average cosine is at least this (all-MiniLM-L6-v2; chosen by scripts/measure-gaps.mjs, BENCHMARKS.md). */
const TOPIC_COSINE = 0.175;
/** The same for vectors centred on the report's own mean (chosen on topics.json, checked on topics-b.json). */
const CENTRED_TOPIC_COSINE = 0.075;
/** Fewer questions than this group raw: two questions centred on their own mean point opposite ways. */
const MIN_CENTRED = 8;
const EXAMPLES = 3;
const CLOSEST = 3;

/** The gaps among asked questions: no short answer given, or its asker's latest feedback "not helpful". */
export function gapQuestions(
  asked: readonly {
    question: string;
    channel: string;
    user: string;
    askedAt: number;
    answer: string | null;
    feedback: { value: string } | null;
  }[],
): GapQuestion[] {
  return asked.flatMap((q) => {
    const why =
      q.feedback?.value === 'not_helpful' ? 'marked not helpful' : q.answer === null ? 'no definite answer' : null;
    return why ? [{ question: q.question, channel: q.channel, user: q.user, askedAt: q.askedAt, why }] : [];
  });
}

const dot = (a: Float32Array, b: Float32Array) => {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
};

/**
 * Average-linkage agglomerative clustering of unit vectors: the two groups whose questions are
 * most alike on average merge while that average is at least `threshold`. Returns each vector's group.
 */
export function groupByTopic(vectors: readonly Float32Array[], threshold = TOPIC_COSINE): number[] {
  const sim = vectors.map((a) => vectors.map((b) => dot(a, b)));
  let groups = vectors.map((_, i) => [i]);
  const average = (g: number[], h: number[]) => {
    let s = 0;
    for (const i of g) for (const j of h) s += sim[i]![j]!;
    return s / (g.length * h.length);
  };
  for (;;) {
    let best = { a: -1, b: -1, s: threshold };
    for (let a = 0; a < groups.length; a++)
      for (let b = a + 1; b < groups.length; b++) {
        const s = average(groups[a]!, groups[b]!);
        if (s >= best.s) best = { a, b, s };
      }
    if (best.a < 0) break;
    const merged = [...groups[best.a]!, ...groups[best.b]!];
    groups = [...groups.filter((_, i) => i !== best.a && i !== best.b), merged];
  }
  const of = new Array<number>(vectors.length).fill(0);
  groups.forEach((g, k) => {
    for (const i of g) of[i] = k;
  });
  return of;
}

/**
 * What the grouping compares: the questions' vectors centred on their own mean and re-normalised,
 * so the cosine weighs what a question asks about over what every question of a team shares (its
 * wording as a question, the team's vocabulary), with the threshold for it; a report of fewer than
 * MIN_CENTRED questions groups its raw vectors. A centre fitted once on other questions (TREC's and
 * teamqa's) did not do this: measured, not kept (docs/benchmarks-history.md).
 */
export function topicVectors(vectors: readonly Float32Array[]): { vectors: Float32Array[]; threshold: number } {
  if (vectors.length < MIN_CENTRED) return { vectors: [...vectors], threshold: TOPIC_COSINE };
  const dim = vectors[0]!.length;
  const mean = new Float64Array(dim);
  for (const v of vectors) for (let d = 0; d < dim; d++) mean[d]! += v[d]! / vectors.length;
  const centred = vectors.map((v) => {
    const out = new Float32Array(dim);
    let norm = 0;
    for (let d = 0; d < dim; d++) {
      out[d] = v[d]! - mean[d]!;
      norm += out[d]! * out[d]!;
    }
    norm = Math.sqrt(norm) || 1;
    for (let d = 0; d < dim; d++) out[d] = out[d]! / norm;
    return out;
  });
  return { vectors: centred, threshold: CENTRED_TOPIC_COSINE };
}

/**
 * The report: gap questions grouped by topic, largest group first, each with its closest documents
 * (`closest` retrieves for a question and returns the documents it finds, best first).
 */
export async function gapReport(
  questions: readonly GapQuestion[],
  encode: (texts: readonly string[]) => Promise<Float32Array[]>,
  closest: (question: string) => Promise<GapGroup['closest']>,
): Promise<GapGroup[]> {
  if (!questions.length) return [];
  const topics = topicVectors(await encode(questions.map((q) => q.question)));
  const of = groupByTopic(topics.vectors, topics.threshold);
  const byGroup = new Map<number, GapQuestion[]>();
  questions.forEach((q, i) => {
    byGroup.set(of[i]!, [...(byGroup.get(of[i]!) ?? []), q]);
  });
  const groups = [...byGroup.values()].map((qs) => [...qs].sort((a, b) => b.askedAt - a.askedAt));
  groups.sort((a, b) => b.length - a.length || b[0]!.askedAt - a[0]!.askedAt);
  return Promise.all(
    groups.map(async (qs) => {
      const docs = new Map<string, GapGroup['closest'][number]>();
      for (const q of qs.slice(0, EXAMPLES))
        for (const d of await closest(q.question)) docs.set(d.source, docs.get(d.source) ?? d);
      return {
        count: qs.length,
        examples: [...new Set(qs.map((q) => q.question))].slice(0, EXAMPLES),
        closest: [...docs.values()].slice(0, CLOSEST),
        questions: qs,
      };
    }),
  );
}

/** A gap report as kept for admins' App Home: when it was made and over how long. */
export interface SavedGapReport {
  at: string;
  sinceMs: number;
  groups: GapGroup[];
}

const SAVED = 'gaps:report';

/** Keeps a report (of every channel and DM) in the store, for admins' App Home to filter per admin. */
export async function saveGapReport(store: Pick<Store, 'caches'>, report: SavedGapReport): Promise<void> {
  await store.caches.setIngestCursor(SAVED, JSON.stringify(report));
}

export async function savedGapReport(store: Pick<Store, 'caches'>): Promise<SavedGapReport | null> {
  const raw = await store.caches.ingestCursor(SAVED);
  return raw ? (JSON.parse(raw) as SavedGapReport) : null;
}

/**
 * A saved report as one reader may see it: only the questions asked where they may read them
 * (`mayRead`), each group's count and examples recounted, its closest documents those they may see;
 * groups left empty are dropped.
 */
export function gapsFor(
  groups: readonly GapGroup[],
  mayRead: (q: GapQuestion) => boolean,
  maySee: (source: string) => boolean,
): GapGroup[] {
  return groups
    .map((g) => {
      const questions = g.questions.filter(mayRead);
      return {
        count: questions.length,
        examples: [...new Set(questions.map((q) => q.question))].slice(0, EXAMPLES),
        closest: g.closest.filter((d) => maySee(d.source)),
        questions,
      };
    })
    .filter((g) => g.count > 0)
    .sort((a, b) => b.count - a.count);
}
