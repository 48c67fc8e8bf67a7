import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseHtml } from '../../src/ingest/parsers/html.js';
import { parseMarkdown } from '../../src/ingest/parsers/markdown.js';
import { parsePdf } from '../../src/ingest/parsers/pdf.js';
import { parseText } from '../../src/ingest/parsers/text.js';
import { SAMPLE_DIR } from '../helpers.js';

describe('Markdown', () => {
  it('reads front matter (title, url), headings, list items and GFM tables', () => {
    const doc = parseMarkdown('---\ntitle: Falcon\nurl: https://wiki.example/falcon\n---\n# Project\n\n- **Lead**: Mirela\n- Ops\n\n| A | B |\n|---|---|\n| 1 | 2 |\n');
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
});

describe('HTML', () => {
  it('keeps structure and drops scripts, styles and navigation', () => {
    const doc = parseHtml(fs.readFileSync(path.join(SAMPLE_DIR, 'projects', 'osprey.html'), 'utf8'));
    expect(doc.title).toBe('Project Osprey');
    expect(doc.url).toBe('https://wiki.kestrel.example/projects/osprey');
    const all = doc.blocks.map((b) => b.text + (b.rows?.flat().join(' ') ?? '')).join(' ');
    expect(all).not.toMatch(/analytics|injected by a script|Wiki home/);
    expect(doc.blocks.find((b) => b.kind === 'table')).toMatchObject({ header: ['Site', 'Commissioned', 'Status'] });
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
