import type { OpenStoreOptions } from './open.js';
import type { HealthCheck } from './types.js';

/**
 * The configured store's health, read without opening it for use (nothing is created, migrated or
 * rebuilt): each backend checks what can go wrong with it. `wantModel`: the encoder the settings
 * select ("all-MiniLM-L6-v2/int8"), against the one the windows were embedded with.
 */
export async function inspectStore(
  settings: Pick<OpenStoreOptions, 'dataDir' | 'databaseUrl' | 'hnsw'>,
  wantModel: string,
): Promise<HealthCheck[]> {
  if (settings.databaseUrl) {
    const { pgStoreHealth } = await import('./pg/health.js');
    return pgStoreHealth(settings.databaseUrl, wantModel);
  }
  const { sqliteHealth } = await import('./sqlite/health.js');
  return sqliteHealth(settings.dataDir, settings.hnsw, wantModel);
}
