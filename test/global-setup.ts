import fs from 'node:fs';
import path from 'node:path';

/** `npm test` fetches the models in its pretest step; running vitest directly needs them too. */
export default function setup(): void {
  const models = path.resolve('models');
  for (const name of ['all-MiniLM-L6-v2', 'test-tiny-mlm']) {
    if (!fs.existsSync(path.join(models, name, 'ragask-model.json'))) {
      throw new Error(`models/${name} is missing: run \`npm run models -- --test-mlm\` (npm test does it for you)`);
    }
  }
}
