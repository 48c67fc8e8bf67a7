import { parse } from 'csv-parse/sync';
import { cleanText, type ParsedDocument } from '../blocks.js';

/**
 * A CSV file (a spreadsheet, a Notion database) as one table: its first row the header, every other
 * row an entry the chunker keeps with its header ("Service: Billing API; Owner: Payments; Tier: 1").
 * csv-parse: the maintained RFC 4180 parser (quoted fields, embedded newlines, a UTF-8 BOM).
 */
export function parseCsv(text: string): ParsedDocument {
  let records: string[][];
  try {
    records = parse(text, { bom: true, relax_column_count: true, skip_empty_lines: true }) as string[][];
  } catch (e) {
    throw new Error(`not readable as CSV (${(e as Error).message.split('\n')[0]}); save it as comma-separated UTF-8`);
  }
  const rows = records.map((r) => r.map((c) => cleanText(c)));
  const [header, ...body] = rows;
  if (!header || body.length === 0) return { title: null, url: null, blocks: [] };
  return { title: null, url: null, blocks: [{ kind: 'table', text: '', header, rows: body }] };
}
