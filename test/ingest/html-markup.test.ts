import { describe, expect, it } from 'vitest';
import { chunkBlocks } from '../../src/ingest/chunker.js';
import { parseHtml } from '../../src/ingest/parsers/html.js';

const chunksOf = (html: string) =>
  chunkBlocks(parseHtml(html).blocks, { maxTokens: 200, countTokens: (t) => t.split(/\s+/).length, minTokens: 1 });
const read = (html: string) => chunksOf(html).map((c) => [c.entry?.term ?? null, c.headingPath, c.text]);

describe('HTML read as a browser reads it', () => {
  it("closes the end tags a page leaves out, so a list whose paragraphs stay open keeps its items' terms", () => {
    // SQLite's limits.html: each item's description paragraph is left open, which HTML allows; the
    // list's `</ol>` closes it (node-html-parser alone dropped the list and every term in it)
    expect(
      read(`<html><body><h1>Limits</h1><ol>
<li><p><b>Maximum Number Of Columns</b></p><p>The default setting for SQLITE_MAX_COLUMN is 2000.</li>
<li><p><b>Maximum Depth Of An Expression Tree</b></p><p>The default is 1000.</ol>
<p>This page last modified on 2022-01-20.</body></html>`),
    ).toEqual([
      [
        'Maximum Number Of Columns',
        ['Limits'],
        'Maximum Number Of Columns: The default setting for SQLITE_MAX_COLUMN is 2000.',
      ],
      ['Maximum Depth Of An Expression Tree', ['Limits'], 'Maximum Depth Of An Expression Tree: The default is 1000.'],
      [null, ['Limits'], 'This page last modified on 2022-01-20.'],
    ]);
  });

  it("reads a table that lays the page out as the page's own blocks, and a table of data as rows", () => {
    // Postfix's documentation index: one row of columns, each a heading and its list of guides
    expect(
      read(`<table border="0"><tr>
<td><p><strong>General configuration</strong></p><ul><li><a href="a.html">Basic configuration</a><li><a href="b.html">Address rewriting</a></ul></td>
<td><p><strong>Problem solving</strong></p><ul><li><a href="c.html">Bottleneck analysis</a></ul></td>
</tr></table>`),
    ).toEqual([
      [null, [], 'General configuration'],
      [null, [], 'Basic configuration'],
      [null, [], 'Address rewriting'],
      [null, [], 'Problem solving'],
      [null, [], 'Bottleneck analysis'],
    ]);
    // Sphinx wraps each cell in a paragraph: still a table, one chunk a row
    expect(
      read(`<table><tr><th>Directive</th><th>Meaning</th></tr>
<tr><td><p>%d</p></td><td><p>Day of the month as a decimal number.</p></td></tr>
<tr><td><p>%f</p></td><td><p>Microsecond as a decimal number.</p></td></tr></table>`).map((r) => r[2]),
    ).toEqual([
      'Directive: %d; Meaning: Day of the month as a decimal number.',
      'Directive: %f; Meaning: Microsecond as a decimal number.',
    ]);
  });
  it("reads a first row of bold cells as the header, as mandoc writes a table, so each row is its keyword's entry", () => {
    // nft(8)'s "Meta expression types" as mandoc renders tbl: no <th>, the header row in bold
    const chunks = chunksOf(`<h1 class="Sh">META EXPRESSIONS</h1><table class="tbl" border="1">
<tr><td><b>Keyword</b></td><td><b>Description</b></td><td><b>Type</b></td></tr>
<tr><td>length</td><td>Length of the packet in bytes</td><td>integer (32-bit)</td></tr>
<tr><td>oifname</td><td>Output interface name</td><td>ifname</td></tr></table>`);
    expect(chunks.map((c) => [c.entry?.term ?? null, c.text])).toEqual([
      ['length', 'Keyword: length; Description: Length of the packet in bytes; Type: integer (32-bit)'],
      ['oifname', 'Keyword: oifname; Description: Output interface name; Type: ifname'],
    ]);
  });
  it("reads an item led by a name set in code, or marked as an option, as that name's entry", () => {
    // Exim's log selectors (DocBook) and Python's parameter lists (Sphinx)
    const chunks = chunksOf(`<h2>Reducing or increasing what is logged</h2><ul>
<li><p><span class="docbook_option">all_parents</span>: Normally only the original and final addresses are logged.</p></li>
<li><p><code class="docutils literal">clear</code> – a Boolean value which, if true, will delete the contents.</p></li>
<li><p>Exim does not include its process id in log lines by default.</p></li></ul>`);
    expect(chunks.map((c) => [c.entry?.term ?? null, c.text])).toEqual([
      ['all_parents', 'all_parents: Normally only the original and final addresses are logged.'],
      ['clear', 'clear – a Boolean value which, if true, will delete the contents.'],
      [null, 'Exim does not include its process id in log lines by default.'],
    ]);
  });

  it('names the rows of a table without a header by their first cell when each row has three cells or more', () => {
    // Exim's log selectors: name, whether it is on by default, what it logs
    const wide = chunksOf(`<table><tr><td><code>8bitmime</code></td><td></td><td>received 8BITMIME status</td></tr>
<tr><td><code>acl_warn_skipped</code></td><td>*</td><td>skipped warn statement in ACL</td></tr></table>`);
    expect(wide.map((c) => [c.entry?.term ?? null, c.text])).toEqual([
      ['8bitmime', '8bitmime |  | received 8BITMIME status'],
      ['acl_warn_skipped', 'acl_warn_skipped | * | skipped warn statement in ACL'],
    ]);
    // two cells are a key and its value: no row is an entry of its own
    const pairs = chunksOf(`<table><tr><td>Default</td><td>KeepAliveTimeout 5</td></tr>
<tr><td>Context</td><td>server config</td></tr></table>`);
    expect(pairs.map((c) => c.entry?.term ?? null)).toEqual([null, null]);
  });
});
