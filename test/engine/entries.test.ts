import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openCore, type Core } from '../../src/core.js';
import { shownLine } from '../../src/engine/answer/lines.js';
import { ingest } from '../../src/ingest/ingest.js';
import { LOCAL } from '../../src/store/access.js';
import { shownReply } from '../../src/eval/visible.js';
import { tempDir, testConfig } from '../helpers.js';

/**
 * A small manual written for these tests: a program page whose options are a term list, and a page
 * of settings where two entries share their words and only the description tells them apart.
 */
const PROGRAM = `<!DOCTYPE html><html><head><title>srvctl - control the report server</title></head><body>
<h1>srvctl - control the report server</h1>
<h2>Options</h2>
<dl>
<dt><b>start</b></dt><dd>Starts the report server and its scheduler.</dd>
<dt><b>stop</b></dt><dd>Stops the report server at once; requests in progress are dropped.</dd>
<dt><b>drain-stop</b></dt><dd>Stops the report server only after every request already in progress has finished.</dd>
<dt><b>check-config</b></dt><dd>Parses the configuration files and reports syntax errors without starting anything.</dd>
</dl></body></html>`;

const SETTINGS = `<!DOCTYPE html><html><head><title>Report server settings</title></head><body>
<h1>Report server settings</h1>
<div class="variablelist"><dl class="variablelist">
<dt><span class="term"><code>flush_interval</code> (<code>integer</code>)</span></dt>
<dd><p>How often the server writes its buffered records out to disk. The valid range is 1 second to 1 hour.
The default is 30 seconds (<code>30s</code>).</p></dd>
<dt><span class="term"><code>flush_batch</code> (<code>integer</code>)</span></dt>
<dd><p>How many buffered records the server groups into one flush. The default is 500 records.</p></dd>
</dl></div></body></html>`;

let core: Core;
let dir: string;
beforeAll(async () => {
  dir = tempDir();
  const docs = path.join(dir, 'docs');
  fs.mkdirSync(docs);
  fs.writeFileSync(path.join(docs, 'srvctl.html'), PROGRAM);
  fs.writeFileSync(path.join(docs, 'settings.html'), SETTINGS);
  const config = testConfig(path.join(dir, 'data'), { RAGASK_QUERY_CACHE_TTL_S: 0 });
  core = await openCore(config);
  await ingest({ store: core.store, encoder: core.encoder, config }, [docs]);
});
afterAll(async () => {
  await core.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const ask = (q: string) => core.engine.run(q, LOCAL);

describe('a manual read as entries', () => {
  it('finds an entry by its description when a neighbour shares its words', async () => {
    const r = await ask('How often does the report server write its buffers to disk?');
    const terms = r.evidence.map((s) => s.citation.entry?.term ?? null);
    expect(terms[0]).toBe('flush_interval');
    expect(terms.indexOf('flush_batch')).toBeGreaterThan(0);
  });

  it('answers a how-to with the command that does it, in the first line a person reads', async () => {
    const r = await ask('How do I shut the report server down but let the requests still running finish first?');
    const first = shownReply(r).value ?? shownReply(r).lines[0]!;
    expect(first).toMatch(/drain-stop/);
    expect(first).not.toMatch(/^stop: /);
  });

  it("shows a value with its entry's term", async () => {
    const r = await ask('By default, how often does the report server flush its buffers to disk?');
    const lines = r.answer.value !== null ? [r.answer.source!] : r.answer.leads;
    const withTerm = lines.map((s) => shownLine(s)).find((l) => l.includes('30 seconds'));
    expect(withTerm).toBe('flush_interval — The default is 30 seconds (30s).');
  });

  it('gives no short answer to a question the manual does not answer', async () => {
    const r = await ask('Which port does the report server listen on for its admin console?');
    expect(r.answer.value).toBeNull();
  });
});
