import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/**
 * A CommonJS package loaded on its first use, not when the CLI starts: every command imports every
 * command's code, and the packages only some runs need (the writer's SDK, Redis, Word and zip
 * readers, YAML) took about 0.4 s of each start (BENCHMARKS.md, "Corpus scale"). Every user of one
 * package goes through its getter, so that `instanceof` meets the classes it was thrown with.
 */
export function lazyPackage<T>(name: string): () => T {
  let loaded: T | undefined;
  return () => (loaded ??= require(name) as T);
}
