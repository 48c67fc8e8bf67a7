import type { Config } from './config.js';
import type { Logger } from './log.js';
import { silentLogger } from './log.js';
import { Encoder } from './models/encoder.js';
import { Store } from './store/store.js';
import { Retriever } from './engine/retrieve.js';

/**
 * The core, assembled from a config: encoder, stores and retriever. Transports (CLI, Slack) open
 * one and pass its parts down; tests assemble the same parts on small data.
 */
export interface Core {
  config: Config;
  log: Logger;
  encoder: Encoder;
  store: Store;
  retriever: Retriever;
  close(): Promise<void>;
}

export async function openCore(config: Config, log: Logger = silentLogger): Promise<Core> {
  const encoder = await Encoder.load({ modelsDir: config.modelsDir, model: config.model, variant: config.modelVariant, threads: config.threads });
  let store: Store;
  try {
    store = Store.open({ dataDir: config.dataDir, model: encoder.id, dimension: encoder.dimension, hnsw: config.hnsw, log });
  } catch (e) {
    await encoder.release();
    throw e;
  }
  const retriever = new Retriever({ store, encoder });
  return {
    config,
    log,
    encoder,
    store,
    retriever,
    async close() {
      store.close();
      await encoder.release();
    },
  };
}
