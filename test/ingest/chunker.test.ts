import { describe, expect, it } from 'vitest';
import type { Block } from '../../src/ingest/blocks.js';
import { chunkBlocks } from '../../src/ingest/chunker.js';

const countTokens = (s: string) => s.split(/\s+/).filter(Boolean).length;

describe('semantic chunking', () => {
  it('keeps each chunk under its heading path, dropping a top heading that repeats the title', () => {
    const blocks: Block[] = [
      { kind: 'heading', text: 'Vantor TS-40', level: 1 },
      { kind: 'heading', text: 'Calibration', level: 2 },
      { kind: 'paragraph', text: 'Add the offset to the raw reading at the nearest calibration point.' },
      { kind: 'heading', text: 'Storage', level: 2 },
      { kind: 'paragraph', text: 'Store between minus forty and seventy degrees in the sealed bag.' },
    ];
    const chunks = chunkBlocks(blocks, { maxTokens: 100, countTokens, title: 'Vantor TS-40 Datasheet' });
    expect(chunks.map((c) => c.headingPath)).toEqual([['Calibration'], ['Storage']]);
  });

  it('makes one chunk per table row, each row keeping its header', () => {
    const chunks = chunkBlocks(
      [
        {
          kind: 'table',
          text: '',
          header: ['Temperature', 'Offset'],
          rows: [
            ['-20 °C', '+0.35 °C'],
            ['0 °C', '+0.18 °C'],
          ],
        },
      ],
      { maxTokens: 100, countTokens },
    );
    expect(chunks.map((c) => c.text)).toEqual([
      'Temperature: -20 °C; Offset: +0.35 °C',
      'Temperature: 0 °C; Offset: +0.18 °C',
    ]);
    expect(chunks.every((c) => c.kind === 'table_row')).toBe(true);
  });

  it("reads a section as its heading's entry when its one-row property sheet recurs under each entry", () => {
    const sheet = (header: string[], row: string[]): Block => ({ kind: 'table', text: '', header, rows: [row] });
    const param = (name: string, row: string[], says: string): Block[] => [
      { kind: 'heading', text: name, level: 4 },
      sheet(['type', 'default', 'mandatory'], row),
      { kind: 'paragraph', text: says },
    ];
    const chunks = chunkBlocks(
      [
        { kind: 'heading', text: 'Action Parameters', level: 3 },
        ...param('Port', ['word', '514', 'no'], 'Name or numerical value of port to use when connecting to target.'),
        ...param('Protocol', ['word', 'udp', 'no'], 'Type of protocol to use for forwarding to the target.'),
        ...param('TCP_FrameDelimiter', ['integer', '10', 'no'], 'Sets a custom frame delimiter for TCP transmission.'),
        { kind: 'heading', text: 'Modules', level: 4 },
        sheet(['Related Modules', 'Related Directives'], ['mod_so', 'LoadModule']),
        { kind: 'paragraph', text: 'httpd is a modular server with only the core built in.' },
        { kind: 'heading', text: 'Examples', level: 3 },
        { kind: 'paragraph', text: 'The action below forwards every message over plain TCP.' },
      ],
      { maxTokens: 100, countTokens },
    );
    expect(chunks.map((c) => [c.text.slice(0, 24), c.entry?.term ?? null])).toEqual([
      ['type: word; default: 514', 'Port'],
      ['Name or numerical value ', 'Port'],
      ['type: word; default: udp', 'Protocol'],
      ['Type of protocol to use ', 'Protocol'],
      ['type: integer; default: ', 'TCP_FrameDelimiter'],
      ['Sets a custom frame deli', 'TCP_FrameDelimiter'],
      ['Related Modules: mod_so;', null],
      ['httpd is a modular serve', null],
      ['The action below forward', null],
    ]);
  });

  it("reads what follows an option's one-row synopsis as that option's entry, to the next synopsis or heading", () => {
    const synopsis = (cells: string[]): Block => ({ kind: 'table', text: '', rows: [cells] });
    const chunks = chunkBlocks(
      [
        { kind: 'heading', text: 'List of main options', level: 2 },
        synopsis(['smtp_accept_max', 'Use: main', 'Type: integer', 'Default: 20']),
        { kind: 'paragraph', text: 'This option specifies the maximum number of simultaneous incoming SMTP calls.' },
        synopsis(['smtp_accept_queue', 'Use: main', 'Type: integer', 'Default: 0']),
        { kind: 'paragraph', text: 'If the number of simultaneous incoming SMTP calls exceeds this, messages queue.' },
        synopsis(['-bd', 'runs the daemon', 'in the background']),
        { kind: 'heading', text: 'Environment', level: 2 },
        { kind: 'paragraph', text: 'Exim clears its environment before it runs a command.' },
      ],
      { maxTokens: 100, countTokens },
    );
    expect(chunks.map((c) => [c.text.slice(0, 24), c.entry?.term ?? null])).toEqual([
      ['smtp_accept_max | Use: m', 'smtp_accept_max'],
      ['This option specifies th', 'smtp_accept_max'],
      ['smtp_accept_queue | Use:', 'smtp_accept_queue'],
      ['If the number of simulta', 'smtp_accept_queue'],
      // a table that states no properties is no synopsis; its rows keep no entry, as any table's in a section
      ['-bd | runs the daemon | ', null],
      ['Exim clears its environm', null],
    ]);
  });

  it('makes one chunk per list item and merges only tiny neighbours of the same section', () => {
    const chunks = chunkBlocks(
      [
        { kind: 'list_item', text: 'Two solar panels' },
        { kind: 'list_item', text: 'A 1.2 kWh battery that lasts four days without any sun at all' },
        { kind: 'list_item', text: 'A weather station reporting wind and humidity every single minute' },
      ],
      { maxTokens: 100, countTokens, minTokens: 4 },
    );
    expect(chunks).toHaveLength(2);
    expect(chunks[0]!.text).toBe('Two solar panels; A 1.2 kWh battery that lasts four days without any sun at all');
  });

  it('splits a paragraph longer than maxTokens at sentence boundaries', () => {
    const sentence = (i: number) => `Sentence number ${i} talks about the sensor calibration procedure in detail.`;
    const text = Array.from({ length: 12 }, (_, i) => sentence(i)).join(' ');
    const chunks = chunkBlocks([{ kind: 'paragraph', text }], { maxTokens: 30, countTokens });
    expect(chunks.length).toBeGreaterThan(1);
    for (const c of chunks) {
      expect(countTokens(c.text)).toBeLessThanOrEqual(30);
      expect(c.text).toMatch(/^Sentence number \d+/);
      expect(c.text).toMatch(/detail\.$/);
    }
    expect(chunks.map((c) => c.text).join(' ')).toBe(text);
  });

  it('keeps page numbers and files footers under "Page footer"', () => {
    const chunks = chunkBlocks(
      [
        { kind: 'paragraph', text: 'Body text on page two about the calibration table.', page: 2 },
        { kind: 'footer', text: 'Document HM-TS40-DS Rev C', page: 1 },
      ],
      { maxTokens: 100, countTokens },
    );
    expect(chunks[0]!.page).toBe(2);
    expect(chunks[1]).toMatchObject({ kind: 'footer', headingPath: ['Page footer'], page: 1 });
  });
});
