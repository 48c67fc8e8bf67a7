import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseHtml } from '../../src/ingest/parsers/html.js';
import { parseMarkdown, withHeadingSlugs } from '../../src/ingest/parsers/markdown.js';
import { parsePdf } from '../../src/ingest/parsers/pdf.js';
import { parseText } from '../../src/ingest/parsers/text.js';
import { chunkBlocks } from '../../src/ingest/chunker.js';
import { SAMPLE_DIR } from '../helpers.js';

const FIXTURES = path.join(import.meta.dirname, '..', 'fixtures');

describe('Markdown', () => {
  it('reads front matter (title, url), headings, list items and GFM tables', () => {
    const doc = parseMarkdown(
      '---\ntitle: Falcon\nurl: https://wiki.example/falcon\n---\n# Project\n\n- **Lead**: Mirela\n- Ops\n\n| A | B |\n|---|---|\n| 1 | 2 |\n',
    );
    expect(doc.title).toBe('Falcon');
    expect(doc.url).toBe('https://wiki.example/falcon');
    expect(doc.blocks.map((b) => b.kind)).toEqual(['heading', 'list_item', 'list_item', 'table']);
    expect(doc.blocks[1]!.text).toBe('Lead: Mirela');
    expect(doc.blocks[3]).toMatchObject({ header: ['A', 'B'], rows: [['1', '2']] });
  });

  it('survives deeply nested lists and quotes without exhausting the stack', () => {
    const nested = Array.from({ length: 200 }, (_, i) => `${'  '.repeat(i)}- level ${i}`).join('\n');
    const quotes = `${'>'.repeat(300)} deep quote`;
    const doc = parseMarkdown(`${nested}\n\n${quotes}\n`);
    expect(doc.blocks.some((b) => b.text.includes('level 0'))).toBe(true);
    expect(doc.blocks.some((b) => b.text.includes('deep quote'))).toBe(true);
  });

  it("gives each heading its id as GitHub renders it, and each chunk its section's id", () => {
    expect(parseMarkdown('# Release Guide\n\nwords\n').blocks[0]!.anchor).toBeUndefined();
    const doc = withHeadingSlugs(
      parseMarkdown(
        '# Release Guide\n\nIntro words for the guide.\n\n## Set-up & run (v2)\n\nRun the set-up script first.\n\n## FAQ\n\nAsk in the channel.\n\n### FAQ\n\nA nested question here.\n',
      ),
    );
    expect(doc.blocks.filter((b) => b.kind === 'heading').map((b) => b.anchor)).toEqual([
      'release-guide',
      'set-up--run-v2',
      'faq',
      'faq-1',
    ]);
    const chunks = chunkBlocks(doc.blocks, { maxTokens: 100, countTokens: (t) => t.split(' ').length, minTokens: 1 });
    expect(chunks.map((c) => [c.text, c.anchor])).toEqual([
      ['Intro words for the guide.', 'release-guide'],
      ['Run the set-up script first.', 'set-up--run-v2'],
      ['Ask in the channel.', 'faq'],
      ['A nested question here.', 'faq-1'],
    ]);
  });
});

describe('HTML', () => {
  it("takes a heading's id from the heading, its permanent link or a named anchor in it", () => {
    const doc = parseHtml(
      '<h1 id="top">Guide</h1><p>x</p><h2>Tuning<a class="headerlink" href="#tuning-the-queue">¶</a></h2><p>y</p><h3><a name="limits"></a>Limits</h3><p>z</p><h3>Plain</h3>',
    );
    expect(doc.blocks.filter((b) => b.kind === 'heading').map((b) => [b.text, b.anchor ?? null])).toEqual([
      ['Guide', 'top'],
      ['Tuning', 'tuning-the-queue'],
      ['Limits', 'limits'],
      ['Plain', null],
    ]);
  });

  it('drops what ARIA marks as navigation or search (a Sphinx sidebar), as it drops <nav>', () => {
    const doc = parseHtml(`<html><body>
      <div class="body" role="main"><h1>os</h1><p>Rename the file.</p></div>
      <div class="sphinxsidebar" role="navigation"><h3>Table of Contents</h3><ul><li><a href="#os.replace">replace()</a></li></ul></div>
      <div role="search"><p>Quick search</p></div>
      </body></html>`);
    expect(doc.blocks.filter((b) => b.kind !== 'section_end').map((b) => `${b.kind}: ${b.text}`)).toEqual([
      'heading: os',
      'paragraph: Rename the file.',
    ]);
  });

  it('unwraps prose wrapped by hand in <pre>, and leaves configuration, a term list and comments as they are', () => {
    // HAProxy's manual and Postfix's manual pages are plain text in <pre>
    const pre = [
      'This captures sample expression <sample> from the request buffer, and',
      'converts it to a string of at most <len> characters. The resulting string is',
      'stored into the next request "capture" slot.',
      '',
      'Example :',
      '    backend static',
      '        option httpchk',
      '',
      '       maximal_queue_lifetime (5d)',
      '              Consider a message as undeliverable, when delivery fails with a',
      '              temporary error.',
      '',
      '# Allow network access from the hosts that are listed in the file below and',
      '# refuse every other client, as the comment above the directive explains',
      '',
      'Most smtp_xxx configuration parameters have an lmtp_xxx "mirror" param-',
      'eter for the equivalent LMTP feature, as this page describes in its text.',
      '',
      '  -m <limit> : limit the total allocatable memory to <limit> megabytes across',
      '    all processes. This may cause some processes to fail on memory pressure.',
    ].join('\n');
    const doc = parseHtml(`<html><body><pre class="text">${pre.replace(/</g, '&lt;')}</pre></body></html>`);
    expect(doc.blocks).toEqual([
      {
        kind: 'code',
        text: [
          'This captures sample expression <sample> from the request buffer, and converts it to a string of at most <len> characters. The resulting string is stored into the next request "capture" slot.',
          '',
          'Example :',
          '    backend static',
          '        option httpchk',
          '',
          '       maximal_queue_lifetime (5d)',
          '              Consider a message as undeliverable, when delivery fails with a',
          '              temporary error.',
          '',
          '# Allow network access from the hosts that are listed in the file below and',
          '# refuse every other client, as the comment above the directive explains',
          '',
          'Most smtp_xxx configuration parameters have an lmtp_xxx "mirror" parameter for the equivalent LMTP feature, as this page describes in its text.',
          '',
          '-m <limit> : limit the total allocatable memory to <limit> megabytes across all processes. This may cause some processes to fail on memory pressure.',
        ].join('\n'),
      },
    ]);
  });

  it('reads a manual page formatted as text in <pre> as mandoc renders one: sections, terms and their descriptions', () => {
    // Postfix's qmgr.8.html: the whole page is one <pre>
    const pre = [
      'NAME',
      '       qmgr - Postfix queue manager',
      '',
      'OTHER RESOURCE AND RATE CONTROLS',
      '       maximal_backoff_time (4000s)',
      '              The maximal time between attempts to deliver a deferred message;',
      '              prior to Postfix 2.4 the default value was 1000s.',
      '',
      '       maximal_queue_lifetime (5d)',
      '              Consider a message as undeliverable, when delivery fails with  a',
      '              temporary error, and the time in the queue has reached the maxi-',
      '              mal_queue_lifetime limit.',
      '',
      'SEE ALSO',
      '       postconf(5), configuration parameters',
    ].join('\n');
    const doc = parseHtml(`<html><body><pre>${pre}</pre></body></html>`);
    expect(doc.blocks.map((b) => `${b.kind} ${b.level ?? ''} ${b.entry?.term ?? ''}: ${b.text}`)).toEqual([
      'heading 2 : NAME',
      'paragraph  : qmgr - Postfix queue manager',
      'heading 2 : OTHER RESOURCE AND RATE CONTROLS',
      'heading 7 : maximal_backoff_time (4000s)',
      'paragraph  maximal_backoff_time: maximal_backoff_time (4000s): The maximal time between attempts to deliver a deferred message; prior to Postfix 2.4 the default value was 1000s.',
      'heading 7 : maximal_queue_lifetime (5d)',
      'paragraph  maximal_queue_lifetime: maximal_queue_lifetime (5d): Consider a message as undeliverable, when delivery fails with a temporary error, and the time in the queue has reached the maximal_queue_lifetime limit.',
      'section_end 7 : ',
      'heading 2 : SEE ALSO',
      'paragraph  : postconf(5), configuration parameters',
    ]);
  });

  it('reads a bold term on a line of its own over the <pre> describing it as a term list item, to the next term', () => {
    // HAProxy's configuration manual, as haproxy-dconv writes it
    const html = [
      '<h3 id="3.1">3.1. Process management and security</h3>',
      '<a class="anchor" name="nbthread"></a><div class="keyword"><b><a class="anchor" name="nbthread"></a>',
      '<a href="#3.1-nbthread">nbthread</a></b> <span>&lt;number&gt;</span></div>',
      '<pre class="text">This setting is only available when support for threads was built in. It',
      'makes HAProxy run on &lt;number&gt; threads.',
      '',
      'Example :',
      '    nbthread 4',
      '</pre>',
      '<p>May be used in sections :</p>',
      '<pre class="text">It defaults to 1. The default value is reported in the output',
      'of "haproxy -vv".</pre>',
      '<div class="keyword"><b>pidfile</b></div><pre class="text">Writes the PID of the process into the file given.</pre>',
      '<div class="separator"><span class="label">Arguments :</span> none</div><pre class="text">The file must be writable by the user the process starts as.</pre>',
      '<div class="note">Deprecated in version 2.5</div><pre class="text">Use the -p option instead.</pre>',
      '<div class="keyword"><b>Example:</b></div><pre>    pidfile /run/haproxy.pid</pre>',
      '<div class="page-header"><b>See also:</b> daemon, nbthread</div>',
      '<div class="keyword"><b>tune.rcvbuf.client</b> &lt;number&gt;</div><a class="anchor" name="tune.rcvbuf.server"></a>',
      '<div class="keyword"><b>tune.rcvbuf.server</b> &lt;number&gt;</div><pre class="text">Forces the kernel socket receive buffer size to this value in bytes.</pre>',
      '<h3 id="3.2">3.2. Performance tuning</h3>',
    ].join('\n');
    const doc = parseHtml(`<html><body>${html}</body></html>`);
    expect(doc.blocks.map((b) => `${b.kind} ${b.level ?? ''} ${b.entry?.term ?? ''}: ${b.text}`)).toEqual([
      'heading 3 : 3.1. Process management and security',
      'heading 7 nbthread <number>: nbthread <number>',
      'code  nbthread <number>: This setting is only available when support for threads was built in. It makes HAProxy run on <number> threads.\n\nExample :\n    nbthread 4',
      'paragraph  nbthread <number>: May be used in sections :',
      'code  nbthread <number>: It defaults to 1. The default value is reported in the output of "haproxy -vv".',
      'heading 7 pidfile: pidfile',
      'code  pidfile: Writes the PID of the process into the file given.',
      'paragraph  pidfile: Arguments : none',
      'code  pidfile: The file must be writable by the user the process starts as.',
      'paragraph  pidfile: Deprecated in version 2.5',
      'code  pidfile: Use the -p option instead.',
      'paragraph  pidfile: Example:',
      'code  pidfile:     pidfile /run/haproxy.pid',
      'paragraph  pidfile: See also: daemon, nbthread',
      'heading 7 tune.rcvbuf.client <number>: tune.rcvbuf.client <number>',
      'heading 7 tune.rcvbuf.client <number>, tune.rcvbuf.server <number>: tune.rcvbuf.client <number>, tune.rcvbuf.server <number>',
      'code  tune.rcvbuf.client <number>, tune.rcvbuf.server <number>: Forces the kernel socket receive buffer size to this value in bytes.',
      'heading 3 : 3.2. Performance tuning',
    ]);
  });

  it('keeps structure and drops scripts, styles and navigation', () => {
    const doc = parseHtml(fs.readFileSync(path.join(SAMPLE_DIR, 'projects', 'osprey.html'), 'utf8'));
    expect(doc.title).toBe('Project Osprey');
    expect(doc.url).toBe('https://wiki.kestrel.example/projects/osprey');
    const all = doc.blocks.map((b) => b.text + (b.rows?.flat().join(' ') ?? '')).join(' ');
    expect(all).not.toMatch(/analytics|injected by a script|Wiki home/);
    expect(doc.blocks.find((b) => b.kind === 'table')).toMatchObject({ header: ['Site', 'Commissioned', 'Status'] });
  });

  // a real page of a Debian documentation package (python3.11-doc): Sphinx breaks lines between inline elements
  const sphinx = parseHtml(fs.readFileSync(path.join(FIXTURES, 'html', 'python-os-replace.html'), 'utf8'));
  const sphinxText = sphinx.blocks.map((b) => b.text).join(' ');

  it('keeps words apart where a line break stands between inline elements (a real Sphinx page)', () => {
    expect(sphinxText).toContain('Rename the file or directory src to dst.');
    expect(sphinxText).toContain('If dst is a non-empty directory, OSError will be raised.');
    expect(sphinxText).toContain('if src and dst are on different filesystems');
    // no word of the page's text is glued to its neighbour
    for (const glued of ['dstis', 'directory,OSError', 'raised.If', 'willbe']) expect(sphinxText).not.toContain(glued);
    expect(sphinxText).not.toContain('\u00b6');
  });

  it('files a term entry under its term, opens its description with the term, and files the text after the list under the heading again', () => {
    const blocks = chunkBlocks(sphinx.blocks, {
      maxTokens: 200,
      countTokens: (t) => t.split(/\s+/).length,
      title: sphinx.title,
    });
    // the term is what a "which function …?" question asks for: the reader reads it in the text
    const rename = blocks.find((c) =>
      c.text.startsWith('os.replace(src, dst, *, src_dir_fd=None, dst_dir_fd=None): Rename the file'),
    );
    expect(rename?.headingPath).toEqual([
      'Files and Directories',
      'os.replace(src, dst, *, src_dir_fd=None, dst_dir_fd=None)',
    ]);
    expect(blocks.find((c) => c.text.startsWith('Text after the list'))?.headingPath).toEqual([
      'Files and Directories',
    ]);
  });

  it('opens a description with its term once, and only for a term, not a sentence', () => {
    const doc = parseHtml(
      `<dl><dt>TCP_NODELAY</dt><dd><p>If set, disable the Nagle algorithm.</p><p>Not a second time.</p></dd>
<dt>gc.auto</dt><dd><p>gc.auto is read by git gc.</p></dd>
<dt>Why does my build fail when the cache directory is on a network file system that is mounted read only?</dt><dd><p>Because it writes there.</p></dd></dl><p>After the list.</p>`,
    );
    expect(doc.blocks.filter((b) => b.kind === 'paragraph').map((b) => b.text)).toEqual([
      'TCP_NODELAY: If set, disable the Nagle algorithm.',
      'Not a second time.',
      'gc.auto is read by git gc.',
      'Because it writes there.',
      'After the list.',
    ]);
  });

  it("files a label the page repeats in each term's description under that term, and a label said once as its own entry", () => {
    // BIND's reference: each statement's description leads with the same "Blocks:" and "Tags:" fields
    const statement = (name: string, blocks: string, what: string) =>
      `<dl class="namedconf statement"><dt id="${name}"><span class="pre">${name}</span></dt>
<dd><p><strong>Grammar: </strong><code>${name} &lt;string&gt; { &lt;address_match_element&gt;; ... }; // may occur multiple times</code></p>
<p><strong>Blocks: </strong>${blocks}</p><p><strong>Tags: </strong>server</p><p>${what}</p></dd></dl>`;
    const doc = parseHtml(
      `<h2>Blocks</h2>${statement('acl', 'topmost', 'Assigns a symbolic name to an address match list.')}
${statement('controls', 'topmost', 'Specifies control channels to be used to manage the name server.')}
${statement('unix', 'controls', 'Specifies a Unix domain socket as a control channel.')}
<dl><dt>fileConfig(fname)</dt><dd><p>Reads the logging configuration.</p><p><strong>fname</strong> – A filename, or a file-like object.</p></dd></dl>`,
    );
    const chunks = chunkBlocks(doc.blocks, { maxTokens: 200, countTokens: (t) => t.split(/\s+/).length });
    const unix = chunks.filter((c) => c.entry?.term === 'unix').map((c) => c.text);
    // the fields stay apart from the description they lead (each is a line of its own), joined to each other
    expect(unix).toEqual([
      'unix: Grammar: unix <string> { <address_match_element>; ... }; // may occur multiple times',
      'Blocks: controls; Tags: server',
      'Specifies a Unix domain socket as a control channel.',
    ]);
    expect(chunks.filter((c) => c.entry?.term === 'Blocks' || c.entry?.term === 'Tags')).toEqual([]);
    expect(chunks.find((c) => c.text.startsWith('fname'))?.entry?.term).toBe('fname');
  });

  it('reads a man page as mandoc renders it: its sections, its terms with their descriptions, no running heads', () => {
    // tzselect(8) of the Linux man-pages 6.03 (public domain), rendered by `mandoc -Thtml`
    const page = parseHtml(fs.readFileSync(path.join(FIXTURES, 'html', 'tzselect-8-mandoc.html'), 'utf8'));
    const headings = page.blocks.filter((b) => b.kind === 'heading').map((b) => b.text);
    // mandoc writes each heading and term inside a permalink: the link is the heading, not a "¶" mark
    expect(headings).toEqual(expect.arrayContaining(['NAME', 'DESCRIPTION', 'ENVIRONMENT', 'AWK', 'TZDIR', 'FILES']));
    const chunks = chunkBlocks(page.blocks, {
      maxTokens: 200,
      countTokens: (t) => t.split(/\s+/).length,
      title: page.title,
    });
    const awk = chunks.find((c) => c.text.startsWith('AWK: Name of a POSIX-compliant awk program'));
    expect(awk?.headingPath).toEqual(['ENVIRONMENT', 'AWK']);
    expect(chunks.some((c) => c.text.includes("System Manager's Manual"))).toBe(false);
  });

  it('drops a "¶" permalink and reads a bullet in the term column as a list item, not a term', () => {
    const doc = parseHtml(
      `<h2>Limits <a class="headerlink" href="#l">¶</a></h2><dl><dt>•</dt><dd><p>One thing.</p></dd><dt>•</dt><dd><p>Another.</p></dd></dl>`,
    );
    expect(doc.blocks.filter((b) => b.kind === 'heading').map((b) => b.text)).toEqual(['Limits']);
    expect(doc.blocks.filter((b) => b.kind === 'paragraph').map((b) => b.text)).toEqual(['One thing.', 'Another.']);
  });

  it('reads a key/value table (a header cell, then its value) as "key: value" rows', () => {
    const doc =
      parseHtml(`<h2><span id="KeepAliveTimeout">KeepAliveTimeout</span> Directive <a class="permalink" href="#k">&para;</a></h2>
<table class="directive">
<tr><th><a href="d.html#Description">Description:</a></th><td>Amount of time the server will wait for subsequent
requests on a persistent connection</td></tr>
<tr><th><a href="d.html#Default">Default:</a></th><td><code>KeepAliveTimeout 5</code></td></tr>
</table>`);
    expect(doc.blocks[0]).toEqual({ kind: 'heading', text: 'KeepAliveTimeout Directive', level: 2, anchor: 'k' });
    expect(doc.blocks[1]).toMatchObject({
      kind: 'table',
      header: [],
      rows: [
        ['Description', 'Amount of time the server will wait for subsequent requests on a persistent connection'],
        ['Default', 'KeepAliveTimeout 5'],
      ],
    });
  });

  it('keeps a code example written with <br> as code: its # comments are not headings', () => {
    const doc = parseHtml(
      '<h2>Options</h2><div class="example"><p><code>\n  # Unknown HTTP method<br>\n  WOW / HTTP/1.0<br>\n</code></p></div><p>After the <code>example</code>\ntext.</p>',
    );
    expect(doc.blocks.filter((b) => b.kind === 'heading').map((b) => b.text)).toEqual(['Options']);
    expect(doc.blocks[1]).toEqual({ kind: 'code', text: '# Unknown HTTP method\nWOW / HTTP/1.0' });
    expect(doc.blocks[2]).toEqual({ kind: 'paragraph', text: 'After the example text.' });
  });

  it('keeps preformatted text line by line, highlighting markup and all', () => {
    const doc = parseHtml(
      '<pre><span class="k">def</span> <span class="nf">f</span>():\n    <span class="k">return</span> 1\n</pre>',
    );
    expect(doc.blocks).toEqual([{ kind: 'code', text: 'def f():\n    return 1' }]);
  });
});

describe('words across lines in Markdown and plain text', () => {
  it('keeps words apart at a line break next to inline HTML in Markdown', () => {
    const doc = parseMarkdown('served by <span>Apache</span>\nmodules and `mod_ssl`\nsettings\n');
    expect(doc.blocks[0]!.text).toBe('served by Apache modules and mod_ssl settings');
  });

  it('joins a word hyphenated across lines in plain text, and keeps words on separate lines apart', () => {
    const doc = parseText('The configu-\nration is read once per\nstart. See Wi-\nFi settings.\n');
    expect(doc.blocks[0]!.text).toBe('The configuration is read once per start. See Wi- Fi settings.');
  });
});

describe('PDF by layout blocks', () => {
  const bytes = new Uint8Array(fs.readFileSync(path.join(SAMPLE_DIR, 'datasheets', 'vantor-ts40.pdf')));

  it('finds headings, a table whose rows keep the header, pages, and the running footer', async () => {
    const doc = await parsePdf(bytes.slice());
    expect(doc.title).toBe('Vantor TS-40 Temperature Sensor Datasheet');
    const table = doc.blocks.find((b) => b.kind === 'table' && b.header?.[0] === 'Temperature');
    expect(table?.header).toEqual(['Temperature', 'Offset', 'Uncertainty (k=2)']);
    expect(table?.rows).toContainEqual(['-20 °C', '+0.35 °C', '0.04 °C']);
    expect(table?.page).toBe(2);
    expect(doc.blocks.some((b) => b.kind === 'heading' && b.text === 'Calibration' && b.page === 2)).toBe(true);
    const footers = doc.blocks.filter((b) => b.kind === 'footer');
    expect(footers).toHaveLength(1);
    expect(footers[0]!.text).toMatch(/HM-TS40-DS Rev C/);
  });

  it('reads a key/value layout without a header row as "key: value" rows', async () => {
    const doc = await parsePdf(bytes.slice());
    const spec = doc.blocks.find((b) => b.kind === 'table' && !b.header);
    expect(spec?.rows).toContainEqual(['Response time', '2.5 s in moving air']);
  });

  it('rejects a truncated PDF', async () => {
    await expect(parsePdf(bytes.slice(0, 600))).rejects.toThrow();
  });
});

describe('plain text', () => {
  it('splits paragraphs on blank lines and reads underlined headings', () => {
    const doc = parseText('Field notes\n===========\n\nFirst paragraph\nwraps here.\n\nSecond.');
    expect(doc.blocks).toEqual([
      { kind: 'heading', text: 'Field notes', level: 1 },
      { kind: 'paragraph', text: 'First paragraph wraps here.' },
      { kind: 'paragraph', text: 'Second.' },
    ]);
  });
});
