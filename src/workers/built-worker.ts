import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { UserError } from '../errors.js';

/** A built worker module beside this file (`name`.js); from the TypeScript sources (tests), the one in dist/. */
export function builtWorker(name: string): string {
  const here = fileURLToPath(import.meta.url);
  const file = here.endsWith('.js')
    ? path.join(path.dirname(here), `${name}.js`)
    : path.resolve(path.dirname(here), '..', '..', 'dist', 'workers', `${name}.js`);
  if (!fs.existsSync(file))
    throw new UserError(`${file} is missing: run \`npm run build\` (worker threads run the built code)`, 'not_built');
  return file;
}
