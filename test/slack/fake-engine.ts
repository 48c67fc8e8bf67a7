/**
 * An engine for the Slack flows' tests: answers from fixture results at once, loads no model, and
 * records what it was asked. The flows (listeners, service, buttons, delivery) are what is under
 * test; the real engine's answers are tested in test/engine and by the few end-to-end Slack tests.
 */
import type { Store } from '../../src/store/interfaces.js';
import type { EngineResult, Suggestion } from '../../src/engine/types.js';
import type { AccessContext } from '../../src/store/access.js';
import { hop, result, snippet } from '../fixtures/results.js';
import type { EngineApi } from '../../src/engine/api.js';

export interface EngineCall {
  kind: 'run' | 'resume' | 'followUp';
  question: string;
  choice?: number | string;
  access: AccessContext;
}

/** A suggestion leading to document `doc`, labelled "entity → title". */
function suggestion(entity: string, doc: number, title: string): Suggestion {
  return {
    entity,
    leadsTo: title,
    chunkId: 1,
    sourceDocId: 1,
    linkDocId: doc,
    query: `Which offset applies (${entity})?`,
    score: 0.6,
    confidence: 0.6,
    coherence: {
      cosine: 0.5,
      directional: 0.1,
      drift: 0.1,
      pRight: 0.6,
      gateThreshold: 0.5,
      passed: false,
      threshold: 0.5,
    },
  };
}

/** The answer the fake gives to `question`: "+0.35 °C" from Doc 1, in two hops. */
function answered(question: string): EngineResult {
  return result({ question });
}

/** A reply that stops for a person after its first hop, with two suggestions to click and their trace. */
export function stopped(question: string): EngineResult {
  const first = snippet(1, 'Project Falcon uses the Vantor TS-40.');
  const suggestions = [
    suggestion('Vantor TS-40', 3, 'Vantor TS-40 Datasheet'),
    suggestion('Kestrel Labs', 4, 'Kestrel Labs'),
  ];
  const candidates = suggestions.map((x) => ({
    entity: x.entity,
    origin: 'evidence' as const,
    chunkId: 1,
    sourceDocId: 1,
    linksTo: x.leadsTo ?? null,
    linkDocId: x.linkDocId,
    features: { link: 1, lookahead: 0.5, idf: 3, relevance: 0.4, question: 0, mlm: null },
    score: x.score,
    confidence: x.confidence,
    query: x.query,
    formedBy: 'slot-fill' as const,
  }));
  const hops = [
    hop(1, [first], { candidates, nextQuery: suggestions[0]!.query, coherence: suggestions[0]!.coherence }),
  ];
  return result(
    { question, hops, evidence: [first], stopReason: 'low_coherence', suggestions },
    {
      status: 'insufficient',
      kind: null,
      value: null,
      sentence: null,
      source: null,
      span: null,
      chain: [first],
      confidence: { score: 0.2, label: 'low', reasons: ['the next hop looked wrong'] },
      leads: [first],
    },
  );
}

export class FakeEngine implements EngineApi {
  readonly calls: EngineCall[] = [];
  /** What `run` answers; tests may replace it. */
  reply: (question: string) => EngineResult = answered;
  private held: Promise<void> | null = null;

  /** Holds every answer until the returned function is called (queue and shutdown tests). */
  hold(): () => void {
    let release!: () => void;
    this.held = new Promise((r) => (release = r));
    return () => {
      this.held = null;
      release();
    };
  }

  async run(question: string, access: AccessContext): Promise<EngineResult> {
    this.calls.push({ kind: 'run', question, access });
    await this.held;
    return this.reply(question);
  }

  /** Continues with the chosen suggestion: one more hop, answered, no suggestions left. */
  async resume(previous: EngineResult, choice: number | string, access: AccessContext): Promise<EngineResult> {
    this.calls.push({ kind: 'resume', question: previous.question, choice, access });
    await this.held;
    const picked = typeof choice === 'number' ? previous.suggestions[choice] : undefined;
    const query = picked?.query ?? String(choice);
    const next = hop(previous.hops.length + 1, [snippet(9, `Continued with ${picked?.entity ?? query}.`)], {
      query,
      formedBy: 'suggestion',
      bridge: picked?.entity ?? null,
    });
    return { ...answered(previous.question), hops: [...previous.hops, next] };
  }

  async followUp(previous: EngineResult, question: string, access: AccessContext): Promise<EngineResult> {
    this.calls.push({ kind: 'followUp', question, access });
    await this.held;
    return { ...this.reply(question), asked: question, followUpOf: previous.question };
  }
}

/** How many documents the fixtures cite (Doc 1 … Doc 9, see test/fixtures/results.ts). */
const FIXTURE_DOCUMENTS = 9;

/**
 * Writes the documents the fixture results cite into an empty store (ids 1 … 9, public), so that
 * what the Slack flows redact by access (traces, continued answers) is visible, as the real
 * engine's evidence is. No model: each window gets a unit vector of the store's dimension.
 */
export async function seedFixtureDocuments(store: Store, dimension: number): Promise<void> {
  const vector = new Float32Array(dimension);
  vector[0] = 1;
  const batch = Array.from({ length: FIXTURE_DOCUMENTS }, (_, k) => {
    const i = k + 1;
    const text = `Fixture passage of Doc ${i}.`;
    return {
      doc: {
        source: `/d/${i}.md`,
        path: `/d/${i}.md`,
        title: `Doc ${i}`,
        kind: 'markdown' as const,
        url: null,
        contentHash: `fixture-${i}`,
        bytes: text.length,
      },
      chunks: [
        {
          ord: 0,
          kind: 'paragraph',
          headingPath: ['Section'],
          page: null,
          text,
          tokenCount: 6,
          density: 0,
          entities: [],
          entry: null,
          windows: [{ ord: 0, charStart: 0, charEnd: text.length, tokenCount: 6, vector }],
        },
      ],
    };
  });
  const ids = await store.documents.replaceDocuments(batch);
  if (ids.join() !== batch.map((_, k) => k + 1).join())
    throw new Error(`the fixture documents need an empty store (got ids ${ids.join(', ')})`);
}
