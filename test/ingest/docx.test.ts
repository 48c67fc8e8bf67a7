import fs from 'node:fs';
import path from 'node:path';
import { Document, HeadingLevel, Packer, Paragraph, Table, TableCell, TableRow, TextRun } from 'docx';
import { afterAll, describe, expect, it } from 'vitest';
import { ingest } from '../../src/ingest/ingest.js';
import { parseDocx } from '../../src/ingest/parsers/docx.js';
import { chunkBlocks } from '../../src/ingest/chunker.js';
import { openCore } from '../../src/core.js';
import { tempDir, testConfig } from '../helpers.js';

/** A Word document made here (docx writes the same OOXML Word does): title property, headings, inline runs, a list, a table. */
async function handbook(title = 'Radio Handbook'): Promise<Uint8Array> {
  const cell = (text: string) => new TableCell({ children: [new Paragraph(text)] });
  const doc = new Document({
    title,
    creator: 'ragask tests',
    numbering: {
      config: [{ reference: 'steps', levels: [{ level: 0, format: 'decimal', text: '%1.', alignment: 'left' }] }],
    },
    sections: [
      {
        children: [
          new Paragraph({ text: 'Skylink LR-9', heading: HeadingLevel.HEADING_1 }),
          new Paragraph({
            children: [
              new TextRun('The radio uses the'),
              new TextRun({ text: ' 868 MHz', bold: true }),
              new TextRun(' band.'),
            ],
          }),
          new Paragraph({ text: 'Pairing', heading: HeadingLevel.HEADING_2 }),
          new Paragraph({ text: 'Hold the button for five seconds.', numbering: { reference: 'steps', level: 0 } }),
          new Paragraph({ text: 'Wait for the green light.', numbering: { reference: 'steps', level: 0 } }),
          new Table({
            rows: [
              new TableRow({ tableHeader: true, children: [cell('Setting'), cell('Default')] }),
              new TableRow({ children: [cell('Transmit power'), cell('20 dBm')] }),
            ],
          }),
        ],
      },
    ],
  });
  return new Uint8Array(await Packer.toBuffer(doc));
}

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

describe('Word documents (.docx)', () => {
  it('reads a paragraph led by a bold term as that field, and a table of named rows as entries', async () => {
    const cell = (text: string) => new TableCell({ children: [new Paragraph(text)] });
    const word = new Document({
      sections: [
        {
          children: [
            new Paragraph({ text: 'Records', heading: HeadingLevel.HEADING_1 }),
            new Paragraph({
              children: [
                new TextRun({ text: 'Retention:', bold: true }),
                new TextRun(' Flight logs are kept for 90 days.'),
              ],
            }),
            new Paragraph({
              children: [new TextRun({ text: 'Bold words', bold: true }), new TextRun(' inside a sentence.')],
            }),
            new Table({
              rows: [
                new TableRow({ tableHeader: true, children: [cell('Log'), cell('Kept for')] }),
                new TableRow({ children: [cell('Flight log'), cell('90 days')] }),
                new TableRow({ children: [cell('Radio log'), cell('30 days')] }),
              ],
            }),
          ],
        },
      ],
    });
    const doc = await parseDocx(new Uint8Array(await Packer.toBuffer(word)));
    const drafts = chunkBlocks(doc.blocks, { maxTokens: 200, countTokens: (t) => t.split(/\s+/).length });
    const entryOf = (needle: string) => drafts.find((d) => d.text.includes(needle))?.entry;
    expect(entryOf('kept for 90 days')).toEqual({ term: 'Retention', kind: 'field' });
    expect(entryOf('inside a sentence')).toBeNull();
    expect(entryOf('30 days')).toEqual({ term: 'Radio log', kind: 'row' });
  });

  it('keeps the title from its properties, its headings, words apart across runs, list steps and its table with the header row', async () => {
    const doc = await parseDocx(await handbook());
    expect(doc.title).toBe('Radio Handbook');
    const headings = doc.blocks.filter((b) => b.kind === 'heading').map((b) => b.text);
    expect(headings).toEqual(['Skylink LR-9', 'Pairing']);
    const text = doc.blocks.map((b) => b.text).join('\n');
    expect(text).toContain('The radio uses the 868 MHz band.');
    expect(doc.blocks.filter((b) => b.kind === 'list_item').map((b) => b.text)).toEqual([
      'Hold the button for five seconds.',
      'Wait for the green light.',
    ]);
    // Word's header row (repeated on each page) is the table's header, as <th> is in HTML
    expect(doc.blocks.filter((b) => b.kind === 'table').map((b) => ({ header: b.header, rows: b.rows }))).toEqual([
      { header: ['Setting', 'Default'], rows: [['Transmit power', '20 dBm']] },
    ]);
  });

  it('refuses a truncated file and a password-protected one, each in one line', async () => {
    const bytes = await handbook();
    await expect(parseDocx(bytes.slice(0, bytes.length / 2))).rejects.toThrow(/^corrupt or truncated \.docx/);
    // Office encrypts a protected document into an OLE compound file
    const ole = new Uint8Array(512);
    ole.set([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]);
    await expect(parseDocx(ole)).rejects.toThrow(/password-protected/);
  });

  it('is ingested and cited like any document, and a broken new version leaves the stored one in place', async () => {
    const dir = tempDir();
    dirs.push(dir);
    const file = path.join(dir, 'docs', 'radio.docx');
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, await handbook());
    const config = testConfig(path.join(dir, 'data'));
    const core = await openCore(config);
    try {
      const deps = { store: core.store, encoder: core.encoder, config };
      const first = await ingest(deps, [path.join(dir, 'docs')]);
      expect(first).toMatchObject({ added: 1, failed: [] });
      const stored = await core.store.documents.getDocumentBySource(file);
      expect(stored).toMatchObject({ title: 'Radio Handbook', kind: 'docx' });
      fs.writeFileSync(file, (await handbook()).slice(0, 300));
      const second = await ingest(deps, [path.join(dir, 'docs')], { prune: true });
      expect(second.failed.map((f) => f.reason)).toEqual([expect.stringMatching(/^corrupt or truncated \.docx/)]);
      expect(second.removed).toBe(0);
      expect((await core.store.documents.getDocumentBySource(file))?.contentHash).toBe(stored!.contentHash);
    } finally {
      await core.close();
    }
  });
});
