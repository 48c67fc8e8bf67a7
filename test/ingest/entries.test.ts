import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { chunkBlocks, type ChunkDraft } from '../../src/ingest/chunker.js';
import { parseHtml } from '../../src/ingest/parsers/html.js';
import { parseMarkdown } from '../../src/ingest/parsers/markdown.js';

const FIXTURES = path.join(import.meta.dirname, '..', 'fixtures');
const words = (s: string) => s.split(/\s+/).filter(Boolean).length;

function chunksOf(file: string): ChunkDraft[] {
  const source = fs.readFileSync(path.join(FIXTURES, file), 'utf8');
  const doc = file.endsWith('.md') ? parseMarkdown(source) : parseHtml(source);
  return chunkBlocks(doc.blocks, { maxTokens: 200, countTokens: words, title: doc.title });
}

/** The chunk whose text holds `needle`, and the entry it belongs to. */
function entryOf(chunks: readonly ChunkDraft[], needle: string) {
  const c = chunks.find((x) => x.text.includes(needle));
  if (!c) throw new Error(`no chunk holds ${JSON.stringify(needle)}`);
  return c.entry;
}

describe('entries at ingest, on real markup', () => {
  it('a DocBook variable list: each setting is an entry by its name, its type left out', () => {
    // PostgreSQL 15's runtime-config-wal.html (postgresql-doc-15)
    const chunks = chunksOf('html/postgresql-checkpoints-docbook.html');
    expect(entryOf(chunks, 'The default is five minutes')).toEqual({ term: 'checkpoint_timeout', kind: 'term' });
    expect(entryOf(chunks, 'The default is 0.9')).toEqual({ term: 'checkpoint_completion_target', kind: 'term' });
    // the text after the list belongs to no entry
    expect(entryOf(chunks, 'Text after the list of settings.')).toBeNull();
  });

  it("a manual page: its name line is the command's entry, each option an entry by its flag", () => {
    // ld.so(8) of the Linux man-pages 6.03, rendered by mandoc
    const chunks = chunksOf('html/ld-so-8-mandoc.html');
    expect(entryOf(chunks, 'dynamic linker/loader')).toEqual({ term: 'ld.so', kind: 'command' });
    expect(entryOf(chunks, 'Do not use /etc/ld.so.cache.')).toEqual({ term: '--inhibit-cache', kind: 'option' });
    // an option's argument and its "since" note are not part of its name
    expect(entryOf(chunks, 'Set argv[0] to the value string')).toEqual({ term: '--argv0', kind: 'option' });
  });

  it('a mandoc term list of environment variables, and a name line under NAME', () => {
    const chunks = chunksOf('html/tzselect-8-mandoc.html');
    expect(entryOf(chunks, 'select a timezone')).toEqual({ term: 'tzselect', kind: 'command' });
    expect(entryOf(chunks, 'Name of a POSIX-compliant')).toEqual({ term: 'AWK', kind: 'term' });
  });

  it('a Sphinx signature: the function is the entry, not its argument list', () => {
    const chunks = chunksOf('html/python-os-replace.html');
    expect(entryOf(chunks, 'Rename the file or directory')).toEqual({ term: 'os.replace', kind: 'term' });
  });

  it('a Markdown page whose items lead with a bolded term: each item is that field', () => {
    // Node.js README, "Release types"
    const chunks = chunksOf('markdown/node-readme-release-types.md');
    expect(entryOf(chunks, 'Under active development')).toEqual({ term: 'Current', kind: 'field' });
    expect(entryOf(chunks, 'Releases that receive Long Term Support')).toEqual({ term: 'LTS', kind: 'field' });
    expect(entryOf(chunks, 'follow semantic versioning')).toBeNull();
  });

  it('a Markdown list whose items lead with a name in code: each item is that name', () => {
    // an alert runbook's labels, as OpenShift's runbooks list them
    const doc = parseMarkdown(
      '## Labels\n\n- `workload`: workload name\n- `namespace` \u2014 namespace of the workload\n- see `oc get pods` output\n',
    );
    const chunks = chunkBlocks(doc.blocks, { maxTokens: 200, countTokens: words, minTokens: 1 });
    expect(chunks.map((c) => [c.entry?.term ?? null, c.text])).toEqual([
      ['workload', 'workload: workload name'],
      ['namespace', 'namespace \u2014 namespace of the workload'],
      [null, 'see oc get pods output'],
    ]);
  });

  it('a table whose rows are named by their first cell: each row is an entry by that name', () => {
    // Node.js api/dns.md, the rrtype table of dns.resolve()
    const chunks = chunksOf('markdown/node-dns-resolve.md');
    expect(entryOf(chunks, 'IPv6 addresses')).toEqual({ term: "'AAAA'", kind: 'row' });
    expect(entryOf(chunks, 'mail exchange records')).toEqual({ term: "'MX'", kind: 'row' });
    // prose around the table belongs to no entry
    expect(entryOf(chunks, 'Uses the DNS protocol')).toBeNull();
  });
});

describe('an entry opened inside a paragraph', () => {
  it('keeps the entry an unnumbered heading opens inside an unclosed paragraph (SQLite pragma pages)', () => {
    const doc = parseHtml(
      '<p>PRAGMA automatic_index; Query, set, or clear the automatic indexing capability.' +
        '<a name="pragma_cache_size"></a><h style="display:none">PRAGMA cache_size</h><hr>' +
        '<p>The default suggested cache size is -2000, which means 2048000 bytes.</p>',
    );
    const chunks = chunkBlocks(doc.blocks, { maxTokens: 200, countTokens: words });
    expect(entryOf(chunks, 'The default suggested cache size')).toEqual({ term: 'PRAGMA cache_size', kind: 'term' });
  });
});

describe('entries the parsers do not make', () => {
  it('a term list of questions (a FAQ) opens no entry, and a table of numbered rows names none', () => {
    const faq = parseHtml(
      '<dl><dt>How do I reset my password when the portal is down?</dt><dd>Call the help desk.</dd></dl>',
    );
    const chunks = chunkBlocks(faq.blocks, { maxTokens: 200, countTokens: words });
    expect(chunks.map((c) => c.entry)).toEqual([null]);
    const numbered = parseMarkdown('| Offset | Size |\n|---|---|\n| 0 | 16 |\n| 16 | 2 |\n');
    expect(chunkBlocks(numbered.blocks, { maxTokens: 200, countTokens: words }).map((c) => c.entry)).toEqual([
      null,
      null,
    ]);
  });
});
