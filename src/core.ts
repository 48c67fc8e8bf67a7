import type { Config } from './config.js';
import { type Logger, silentLogger } from './log.js';
import { AccessResolver } from './engine/access.js';
import { Decomposer } from './engine/decompose.js';
import { ENGINE_DEFAULTS } from './engine/defaults.js';
import { GATE_THRESHOLD, USEFUL_THRESHOLD } from './engine/gate.js';
import { SUGGESTION_FLOOR } from './engine/offer.js';
import { HopEngine } from './engine/hops.js';
import { QueryCache } from './engine/query-cache.js';
import { Retriever } from './engine/retrieve.js';
import { answerWriter, type AnswerWriter } from './engine/writer/index.js';
import { openAIChat } from './engine/writer/client.js';
import { encoderJudge, SUPPORT_THRESHOLDS } from './engine/writer/support.js';
import { cosineScorer } from './engine/rerank.js';
import { Encoder } from './models/encoder.js';
import { MaskedLM } from './models/masked-lm.js';
import { Reader } from './models/reader.js';
import { loadNlp } from './models/nlp.js';
import { resolveModel } from './models/registry.js';
import { type OpenStoreOptions, openStore } from './store/open.js';
import type { Store } from './store/interfaces.js';
import type { EngineSettings } from './engine/settings.js';
import type { ProgressReporter } from './progress.js';

/**
 * The core, assembled from a config: encoder, stores, retriever and the multi-hop engine.
 * Transports (CLI, Slack) open one and pass its parts down; tests assemble the same parts on small data.
 */
export interface Core {
  config: Config;
  log: Logger;
  encoder: Encoder;
  mlm: MaskedLM | null;
  reader: Reader;
  store: Store;
  retriever: Retriever;
  /** The engine in this thread (`ragask serve` answers Slack from a pool of them: EnginePool). */
  engine: HopEngine;
  access: AccessResolver;
  queryCache: QueryCache;
  /** The optional answer writer (RAGASK_WRITER_URL): checked prose from the evidence, or null. */
  writer: AnswerWriter | null;
  close(): Promise<void>;
}

export function engineSettings(config: Config): EngineSettings {
  return {
    maxHops: config.maxHops,
    coherenceThreshold: config.coherenceThreshold,
    rerankTopK: config.rerankTopK,
    hopBudgetMs: config.hopBudgetMs,
    totalBudgetMs: config.totalBudgetMs,
    retrieveK: ENGINE_DEFAULTS.retrieveK,
    answeredCoverage: ENGINE_DEFAULTS.answeredCoverage,
    readerPassages: config.readerPassages,
    gateThreshold: GATE_THRESHOLD,
    stopForPerson: config.stopForPerson,
    usefulThreshold: USEFUL_THRESHOLD,
    suggestionFloor: SUGGESTION_FLOOR,
  };
}

/**
 * What the Slack app needs of the core when the engine answers elsewhere (in worker threads): the
 * store (its Slack state, the list of sources) and who may see what.
 */
export type StoreCore = Pick<Core, 'store' | 'access'> & { close(): Promise<void> };

/**
 * The store alone, without loading any model (the encoder's id and dimension come from its
 * manifest): for `ragask serve` when workers answer, where models in this thread would sit idle.
 */
export async function openStoreCore(
  config: Config,
  log: Logger = silentLogger,
  opts: Pick<OpenCoreOptions, 'indexProgress'> = {},
): Promise<StoreCore> {
  const { manifest } = resolveModel(config.modelsDir, config.model, config.modelVariant);
  const store = await openStore({
    ...storeSettingsOf(config),
    model: `${manifest.name}/${config.modelVariant}`,
    dimension: manifest.dimension ?? 384,
    log,
    ...(opts.indexProgress ? { indexProgress: opts.indexProgress } : {}),
  });
  return {
    store,
    access: new AccessResolver(store),
    async close() {
      await store.close();
    },
  };
}

/** Where the configured store is (embedded folder or PostgreSQL, and its schema) and its index settings. */
export function storeSettingsOf(
  config: Config,
): Pick<OpenStoreOptions, 'dataDir' | 'databaseUrl' | 'pgSchema' | 'hnsw'> {
  return {
    dataDir: config.dataDir,
    databaseUrl: config.databaseUrl,
    hnsw: config.hnsw,
    ...(config.databaseSchema ? { pgSchema: config.databaseSchema } : {}),
  };
}

export interface OpenCoreOptions {
  /** False in an engine worker: its HNSW index follows the store's index log in memory only. */
  persistIndex?: boolean;
  /** Shows a rebuild of the vector index when the saved one cannot be used (the CLI's progress bar). */
  indexProgress?: ProgressReporter;
}

export async function openCore(config: Config, log: Logger = silentLogger, opts: OpenCoreOptions = {}): Promise<Core> {
  const models = { modelsDir: config.modelsDir, model: config.model, variant: config.modelVariant };
  // The store opens first: its vector index is read on a libuv thread while the models load on this
  // one (over a gigabyte at a million windows; BENCHMARKS.md, "Corpus scale").
  const { id, dimension } = Encoder.identify(models);
  const opening = openStore({
    ...storeSettingsOf(config),
    model: id,
    dimension,
    log,
    persistIndex: opts.persistIndex ?? true,
    ...(opts.indexProgress ? { indexProgress: opts.indexProgress } : {}),
  });
  opening.catch(() => {}); // awaited below; a failure while the models load is not left unhandled
  loadNlp();
  let encoder: Encoder;
  try {
    encoder = await Encoder.load({ ...models, threads: config.threads });
  } catch (e) {
    await (await opening.catch(() => null))?.close();
    throw e;
  }
  let store: Store;
  let mlm: MaskedLM | null = null;
  let reader: Reader | null = null;
  const releaseModels = async () => {
    await encoder.release();
    await mlm?.release();
    await reader?.release();
  };
  try {
    if (config.mlmModel)
      mlm = await MaskedLM.load({ modelsDir: config.modelsDir, model: config.mlmModel, threads: config.threads });
    reader = await Reader.load({
      modelsDir: config.modelsDir,
      model: config.readerModel,
      variant: config.readerVariant,
      threads: config.threads,
    });
    store = await opening;
  } catch (e) {
    await (await opening.catch(() => null))?.close();
    await releaseModels();
    throw e;
  }
  const retriever = new Retriever({ store, encoder, scorer: cosineScorer, densityWeight: config.densityWeight });
  const queryCache = new QueryCache(store, config.queryCacheTtlS);
  const decomposer = new Decomposer({
    store,
    mlm,
    windowsOfDoc: (id) => retriever.windowsOfDoc(id),
    windowsOfChunks: (ids) => retriever.windowVectors(ids),
  });
  const access = new AccessResolver(store);
  const engine = new HopEngine(
    { retriever, decomposer, encoder, reader, access, queryCache, log },
    engineSettings(config),
  );
  return {
    config,
    log,
    encoder,
    mlm,
    reader,
    store,
    retriever,
    engine,
    access,
    queryCache,
    writer: writerOf(config, encoder, log),
    async close() {
      await store.close();
      await releaseModels();
    },
  };
}

/** The writer when one is configured: an OpenAI-compatible endpoint, checked by this encoder. */
export function writerOf(
  config: Pick<Config, 'writer' | 'model'>,
  encoder: Pick<Encoder, 'encode'>,
  log: Logger,
): AnswerWriter | null {
  if (!config.writer) return null;
  // the checker's support threshold is measured per encoder: without one, no sentence could be judged.
  // Said once, by whoever starts the writer (`serve`'s writerReady, `ask`), not by every worker here.
  const threshold = SUPPORT_THRESHOLDS[config.model];
  if (threshold === undefined) return null;
  return answerWriter({
    client: openAIChat(config.writer),
    judge: encoderJudge(encoder),
    settings: config.writer,
    log,
    threshold,
  });
}
