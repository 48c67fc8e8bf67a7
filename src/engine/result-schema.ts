/**
 * An EngineResult as data that outlives the process: stored behind a reply's buttons and in a
 * thread's turns, and read back by another replica that may run other code. It is stored with a
 * version and validated when read; a result of another version, or one that does not parse, is not
 * cast into shape but treated as gone (the buttons say the answer expired).
 * zod: the declarative schema names what failed, and its inferred type is checked against
 * EngineResult below, so the two cannot drift apart unnoticed.
 */
import { z } from 'zod';
import type { EngineResult } from './types.js';
import type { ReadingFeatures } from './answer/features.js';

/** Bump when EngineResult changes in a way an earlier reader cannot use. */
export const RESULT_VERSION = 1;

const citation = z.object({
  document: z.string(),
  source: z.string(),
  heading_path: z.array(z.string()),
  page: z.number().nullable(),
  url: z.string().nullable(),
  entry: z.object({ term: z.string(), kind: z.enum(['term', 'option', 'command', 'row', 'field']) }).optional(),
});
const snippet = z.object({
  chunkId: z.number(),
  docId: z.number(),
  windowId: z.number().nullable(),
  text: z.string(),
  score: z.number(),
  citation,
});
const coherence = z.object({
  cosine: z.number(),
  directional: z.number(),
  drift: z.number(),
  pRight: z.number().nullable(),
  gateThreshold: z.number().nullable(),
  gateFeatures: z.array(z.number()).optional(),
  threshold: z.number(),
  passed: z.boolean(),
});
const span = z.object({ chunkId: z.number(), start: z.number(), end: z.number() });
const features = z.custom<ReadingFeatures>(
  (v) => typeof v === 'object' && v !== null && typeof (v as { kind?: unknown }).kind === 'string',
  'reading features',
);

const candidate = z.object({
  entity: z.string(),
  origin: z.enum(['evidence', 'question']),
  chunkId: z.number().nullable(),
  sourceDocId: z.number().nullable(),
  linksTo: z.string().nullable(),
  linkDocId: z.number().nullable(),
  linkVia: z.enum(['title', 'heading', 'mention']).nullable().optional(),
  ownPageHeld: z.boolean().optional(),
  features: z.object({
    link: z.number(),
    lookahead: z.number(),
    idf: z.number(),
    relevance: z.number(),
    question: z.number(),
    mlm: z.number().nullable(),
  }),
  score: z.number(),
  confidence: z.number(),
  query: z.string(),
  formedBy: z.enum(['slot-fill', 'appended']),
});

const hop = z.object({
  hop: z.number(),
  query: z.string(),
  formedBy: z.enum(['question', 'slot-fill', 'appended', 'suggestion', 'follow-up']),
  bridge: z.string().nullable(),
  bridgeFrom: z.object({ sourceDocId: z.number().nullable(), linkDocId: z.number().nullable() }).nullable().optional(),
  weight: z.number(),
  retrieved: z.array(
    z.object({
      chunkId: z.number(),
      docId: z.number(),
      score: z.number(),
      rerank: z.number(),
      dense: z.number().nullable(),
      bm25: z.number().nullable(),
    }),
  ),
  snippets: z.array(snippet),
  candidates: z.array(candidate),
  nextQuery: z.string().nullable(),
  coherence: coherence.nullable(),
  timings: z.object({
    encodeMs: z.number(),
    denseMs: z.number(),
    bm25Ms: z.number(),
    rerankMs: z.number(),
    retrieveMs: z.number(),
    decomposeMs: z.number(),
    totalMs: z.number(),
    cached: z.boolean(),
  }),
  incomplete: z.boolean(),
});

const suggestion = z.object({
  entity: z.string(),
  leadsTo: z.string().nullable().optional(),
  leadsVia: z.enum(['title', 'heading', 'mention']).nullable().optional(),
  chunkId: z.number().nullable(),
  sourceDocId: z.number().nullable(),
  linkDocId: z.number().nullable(),
  query: z.string(),
  score: z.number(),
  confidence: z.number(),
  coherence,
});

const answer = z.object({
  status: z.enum(['answered', 'insufficient', 'conflicting']),
  kind: z.enum(['span', 'yes', 'no']).nullable(),
  value: z.string().nullable(),
  sentence: z.string().nullable(),
  source: snippet.nullable(),
  span: span.nullable(),
  chain: z.array(snippet),
  confidence: z.object({ score: z.number(), label: z.enum(['high', 'medium', 'low']), reasons: z.array(z.string()) }),
  conflicts: z.array(z.object({ attribute: z.string(), values: z.array(z.object({ value: z.string(), snippet })) })),
  alternatives: z.array(z.object({ value: z.string(), snippet })),
  leads: z.array(snippet),
  comparison: z
    .object({
      attribute: z.string().nullable(),
      options: z.array(z.object({ entity: z.string(), value: z.string().nullable(), snippet: snippet.nullable() })),
    })
    .nullable(),
  reading: z
    .object({
      kind: z.enum(['span', 'yes', 'no', 'none']),
      value: z.string().nullable(),
      at: span.nullable(),
      features,
      ms: z.number(),
    })
    .nullable(),
});

const written = z.object({
  model: z.string(),
  ms: z.number(),
  failed: z.string().nullable(),
  sentences: z.array(
    z.object({
      text: z.string(),
      citations: z.array(z.number()),
      kept: z.boolean(),
      reason: z.enum(['no_citation', 'bad_citation', 'value_not_in_source', 'not_supported']).nullable(),
      detail: z.string().nullable(),
      support: z.number().nullable(),
    }),
  ),
});

const result = z.object({
  question: z.string(),
  asked: z.string().optional(),
  followUpOf: z.string().optional(),
  hops: z.array(hop),
  evidence: z.array(snippet),
  stopReason: z.enum(['answered', 'no_new_evidence', 'no_bridge', 'max_hops', 'budget', 'low_coherence', 'hop_unsure']),
  suggestions: z.array(suggestion),
  incomplete: z.boolean().optional(),
  answer,
  timings: z.object({ totalMs: z.number(), readMs: z.number().optional() }),
  written: written.optional(),
  settings: z.object({
    maxHops: z.number(),
    coherenceThreshold: z.number(),
    rerankTopK: z.number(),
    hopBudgetMs: z.number(),
    totalBudgetMs: z.number(),
  }),
});

// the schema's type must be an EngineResult: a field added to one and not the other fails to compile
const asResult = (x: z.infer<typeof result>): EngineResult => x;

const stored = z.object({ version: z.literal(RESULT_VERSION), result });

/** The text a result is stored as: the result with its version. */
export function encodeResult(r: EngineResult): string {
  return JSON.stringify({ version: RESULT_VERSION, result: r });
}

/** A stored result read back, or null when it is of another version or not a result at all (never cast). */
export function decodeResult(text: string): EngineResult | null {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    return null;
  }
  const parsed = stored.safeParse(data);
  return parsed.success ? asResult(parsed.data.result) : null;
}
