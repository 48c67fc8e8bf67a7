import { describe, expect, it } from 'vitest';
import { isRst, parseRst } from '../../src/ingest/parsers/rst.js';
import { chunkBlocks } from '../../src/ingest/chunker.js';

// A module page in the shape of lighttpd's manuals (reStructuredText in a .txt file), written for this test.
const PAGE = `=========
Keepalive
=========

------------------
Module: mod_linger
------------------

:Author: Ada Byrne
:Date: $Date: 2024/01/02 10:00:00 $

:abstract:
  The linger module keeps idle connections open.

.. meta::
  :keywords: lighttpd, linger

.. contents:: Table of Contents

Options
=======

linger.idle-timeout
  how many seconds an idle connection stays open

  Default: 30

linger.hosts
  the \`\`hosts\`\` allowed to linger, e.g.: ::

    linger.hosts = ( "10.0.0.1" )

:linger.debug:
  a value of 1 turns on the debug output

====== =====================
Value  Meaning
====== =====================
0      quiet
1      verbose
====== =====================

.. note:: restart the server after changing *any* option.
`;

describe('reStructuredText', () => {
  it('reads sections, term entries, literal blocks, a simple table and a note, and leaves out meta and contents', () => {
    const doc = parseRst(PAGE);
    expect(doc.title).toBe('Keepalive');
    expect(doc.blocks).toEqual([
      { kind: 'heading', text: 'Keepalive', level: 1 },
      { kind: 'heading', text: 'Module: mod_linger', level: 2 },
      { kind: 'paragraph', text: 'Author: Ada Byrne' },
      { kind: 'heading', text: 'abstract', level: 7 },
      {
        kind: 'paragraph',
        text: 'abstract: The linger module keeps idle connections open.',
        entry: { term: 'abstract', kind: 'term' },
      },
      { kind: 'section_end', text: '', level: 7 },
      { kind: 'heading', text: 'Options', level: 3 },
      { kind: 'heading', text: 'linger.idle-timeout', level: 7 },
      {
        kind: 'paragraph',
        text: 'linger.idle-timeout: how many seconds an idle connection stays open',
        entry: { term: 'linger.idle-timeout', kind: 'term' },
      },
      { kind: 'paragraph', text: 'Default: 30', entry: { term: 'linger.idle-timeout', kind: 'term' } },
      { kind: 'section_end', text: '', level: 7 },
      { kind: 'heading', text: 'linger.hosts', level: 7 },
      {
        kind: 'paragraph',
        text: 'linger.hosts: the hosts allowed to linger, e.g.:',
        entry: { term: 'linger.hosts', kind: 'term' },
      },
      { kind: 'code', text: 'linger.hosts = ( "10.0.0.1" )', entry: { term: 'linger.hosts', kind: 'term' } },
      { kind: 'section_end', text: '', level: 7 },
      { kind: 'heading', text: 'linger.debug', level: 7 },
      {
        kind: 'paragraph',
        text: 'linger.debug: a value of 1 turns on the debug output',
        entry: { term: 'linger.debug', kind: 'term' },
      },
      { kind: 'section_end', text: '', level: 7 },
      {
        kind: 'table',
        text: '',
        header: ['Value', 'Meaning'],
        rows: [
          ['0', 'quiet'],
          ['1', 'verbose'],
        ],
      },
      { kind: 'paragraph', text: 'restart the server after changing any option.' },
    ]);
  });

  it("keeps a term's default in its entry, where plain text had joined it to the next term's description", () => {
    const chunks = chunkBlocks(parseRst(PAGE).blocks, { maxTokens: 100, countTokens: (s) => s.split(/\s+/).length });
    const byText = new Map(chunks.map((c) => [c.text, c.entry?.term ?? null]));
    expect(byText.get('Default: 30')).toBe('linger.idle-timeout');
  });

  it('reads a nested list item by item, one level deeper, with an example inside it', () => {
    const doc = parseRst(
      '* cache tuning\n  - stat_cache: caches stat() results\n    for 1-2 seconds\n  - mod_auth: set auth.cache::\n\n      auth.cache = ( "max-age" => "600" )\n\n* use mmap\n',
    );
    expect(doc.blocks).toEqual([
      { kind: 'list_item', text: 'cache tuning', level: 1 },
      { kind: 'list_item', text: 'stat_cache: caches stat() results for 1-2 seconds', level: 2 },
      { kind: 'list_item', text: 'mod_auth: set auth.cache:', level: 2 },
      { kind: 'code', text: 'auth.cache = ( "max-age" => "600" )' },
      { kind: 'list_item', text: 'use mmap', level: 1 },
    ]);
  });

  it('tells reStructuredText from plain notes with an underlined heading', () => {
    expect(isRst(PAGE)).toBe(true);
    expect(isRst('Install\n=======\n\n.. code-block:: sh\n\n   make install\n')).toBe(true);
    expect(isRst('Field notes\n===========\n\nCold soaks at -20 °C.\n\n- battery heaters on\n')).toBe(false);
  });
});
