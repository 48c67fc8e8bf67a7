import { describe, expect, it } from 'vitest';
import { chunkBlocks } from '../../src/ingest/chunker.js';
import { parseHtml } from '../../src/ingest/parsers/html.js';

const chunksOf = (html: string) =>
  chunkBlocks(parseHtml(html).blocks, { maxTokens: 200, countTokens: (t) => t.split(/\s+/).length, minTokens: 1 });

describe('terms as manuals write them', () => {
  it("reads mandoc's hanging paragraph (help2man's options) as the term of the list under it", () => {
    // sed(1) as `mandoc -T html` renders it: the option in a paragraph, its description under an empty term
    const chunks = chunksOf(`<h1 class="Sh">DESCRIPTION</h1>
<p class="Pp HP"><b>-i[SUFFIX]</b>, <b>--in-place</b>[=<i>SUFFIX</i>]</p>
<dl class="Bl-tag"><dt></dt><dd>edit files in place (makes backup if SUFFIX supplied)</dd></dl>
<p class="Pp HP"><b>--posix</b></p>
<dl class="Bl-tag"><dt></dt><dd>disable all GNU extensions.</dd></dl>
<p class="Pp">If no script is given, the first argument is the script.</p>`);
    const inPlace = chunks.find((c) => c.text.includes('edit files in place'));
    expect(inPlace?.text).toBe(
      '-i[SUFFIX], --in-place[=SUFFIX]: edit files in place (makes backup if SUFFIX supplied)',
    );
    expect(inPlace?.entry).toEqual({ term: '-i, --in-place', kind: 'option' });
    expect(chunks.find((c) => c.text.includes('GNU extensions'))?.entry?.term).toBe('--posix');
    // the list ends the entry: the paragraph after it is the section's again
    const after = chunks.find((c) => c.text.startsWith('If no script'));
    expect(after?.entry).toBeNull();
    expect(after?.headingPath).toEqual(['DESCRIPTION']);
  });

  it('reads a bold term over an indented block as the entry the block describes (asciidoctor man pages)', () => {
    // chrony.conf(5) as `mandoc -T html` renders it: the directive, then its description indented
    const chunks = chunksOf(`<h1 class="Sh">System clock</h1>
<p class="Pp"><b>makestep</b> <i>threshold</i> <i>limit</i></p>
<div class="Bd-indent">This directive forces chronyd to step the system clock.
<p class="Pp">An example of the use of this directive is:</p>
<pre>makestep 0.1 3</pre></div>
<p class="Pp">The clock is slewed otherwise.</p>`);
    expect(chunks.map((c) => [c.entry?.term ?? null, c.kind, c.text])).toEqual([
      [
        'makestep threshold limit',
        'paragraph',
        'makestep threshold limit: This directive forces chronyd to step the system clock.',
      ],
      ['makestep threshold limit', 'paragraph', 'An example of the use of this directive is:'],
      ['makestep threshold limit', 'code', 'makestep 0.1 3'],
      [null, 'paragraph', 'The clock is slewed otherwise.'],
    ]);
  });

  it("reads a list item that names its term in a paragraph of its own as that term's entry (Sphinx parameter lists)", () => {
    // rsyslog's global() parameters, as its Sphinx HTML writes them
    const chunks = chunksOf(`<h1>global() configuration object</h1><ul>
<li><p><strong>workDirectory</strong></p>
<p>Sets the directory that rsyslog uses for work files.</p></li>
<li><p><strong>umask</strong> available 8.26.0+</p>
<p>Sets the rsyslogd process' umask.</p><p>The value must be a 4-digit octal number.</p></li>
<li><p><strong>Note</strong> that the parameters are case-insensitive.</p><p>They can be set once.</p></li>
</ul>`);
    expect(chunks.map((c) => [c.entry?.term ?? null, c.text])).toEqual([
      ['workDirectory', 'workDirectory: Sets the directory that rsyslog uses for work files.'],
      ['umask', "umask available 8.26.0+: Sets the rsyslogd process' umask."],
      ['umask', 'The value must be a 4-digit octal number.'],
      // a bold word opening a sentence names nothing
      [null, 'Note that the parameters are case-insensitive.'],
      [null, 'They can be set once.'],
    ]);
  });

  it('keeps a plain paragraph over an indented list with no tags as the lead-in it is', () => {
    const chunks = chunksOf(`<h1>ESCAPES</h1><p class="Pp">The supported escapes are:</p>
<dl class="Bl-tag"><dt></dt><dd>Disconnect.</dd></dl>`);
    expect(chunks.find((c) => c.text.includes('supported escapes'))?.entry).toBeNull();
  });

  it('reads a term made of punctuation as a name (an escape, an operator), and a bullet as a list item', () => {
    const chunks = chunksOf(`<h1>ESCAPE CHARACTERS</h1><dl class="Bl-tag">
<dt>~.</dt><dd>Disconnect.</dd><dt>--</dt><dd>Ends the options.</dd><dt>*</dt><dd>Zero or more times.</dd></dl>`);
    expect(chunks.map((c) => [c.entry?.term ?? null, c.text])).toEqual([
      ['~.', '~.: Disconnect.'],
      ['--', '--: Ends the options.'],
      ['*', '*: Zero or more times.'],
    ]);
    const bulleted = parseHtml('<h1>Options</h1><dl><dt>&#x25CB;</dt><dd><b>--seq</b>: use RS separators</dd></dl>');
    expect(bulleted.blocks.filter((b) => b.kind === 'heading').map((b) => b.text)).toEqual(['Options']);
  });
  it("reads a bulleted item that is only its term as the entry of the untagged items under it (ronn's pages: jq)", () => {
    // jq(1), ronn's Markdown through mandoc: each option a bulleted item, its description untagged items
    const chunks = chunksOf(`<h1 class="Sh">INVOKING JQ</h1>
<dl class="Bl-tag">
  <dt>&#x25CB;</dt>
  <dd><b>--seq</b>:</dd>
  <dt></dt>
  <dd>Use the <b>application/json-seq</b> MIME type scheme for separating JSON texts.</dd>
  <dt>&#x25CB;</dt>
  <dd><b>--stream</b>:</dd>
  <dt></dt>
  <dd>Parse the input in streaming fashion.</dd>
  <dt></dt>
  <dd>This is useful for processing very large inputs.</dd>
  <dt>&#x25CB;</dt>
  <dd>Any other bullet, a sentence: not a term.</dd>
</dl>`);
    expect(chunks.map((c) => [c.entry?.term ?? null, c.text])).toEqual([
      ['--seq', '--seq: Use the application/json-seq MIME type scheme for separating JSON texts.'],
      ['--stream', '--stream: Parse the input in streaming fashion.'],
      ['--stream', 'This is useful for processing very large inputs.'],
      ['--stream', 'Any other bullet, a sentence: not a term.'],
    ]);
  });
  it("reads a bold term over a blockquote as the entry the quote describes (SQLite's compile-time options)", () => {
    const chunks = chunksOf(`<h2>Options To Set Default Parameter Values</h2>
<p><b>SQLITE_DEFAULT_CACHE_SIZE=<i>&lt;N&gt;</i></b></p><blockquote><p>
  This macro sets the default maximum size of the page-cache. The default value is -2000.</p></blockquote>
<p><b>SQLITE_DEFAULT_FOREIGN_KEYS=<i>&lt;0 or 1&gt;</i></b></p><blockquote><p>
  This macro determines whether enforcement of foreign key constraints is enabled by default.</p></blockquote>
<blockquote>A quote under a sentence stays a quote.</blockquote>`);
    expect(chunks.map((c) => [c.entry?.term ?? null, c.kind, c.text])).toEqual([
      [
        'SQLITE_DEFAULT_CACHE_SIZE=<N>',
        'paragraph',
        'SQLITE_DEFAULT_CACHE_SIZE=<N>: This macro sets the default maximum size of the page-cache. The default value is -2000.',
      ],
      [
        'SQLITE_DEFAULT_FOREIGN_KEYS=<0 or 1>',
        'paragraph',
        'SQLITE_DEFAULT_FOREIGN_KEYS=<0 or 1>: This macro determines whether enforcement of foreign key constraints is enabled by default.',
      ],
      [null, 'quote', 'A quote under a sentence stays a quote.'],
    ]);
  });
});
