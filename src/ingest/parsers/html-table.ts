import { HTMLElement } from 'node-html-parser';
import type { Block } from '../blocks.js';

const tagOf = (el: HTMLElement): string => (el.rawTagName ?? '').toLowerCase();

/** The rows of a table (not of tables nested in it), each as its cells, header cells marked. */
function tableRows(
  table: HTMLElement,
  cellText: (cell: HTMLElement) => string,
): { cells: string[]; header: boolean[] }[] {
  const rows: { cells: string[]; header: boolean[] }[] = [];
  const visit = (el: HTMLElement) => {
    for (const c of el.childNodes) {
      if (!(c instanceof HTMLElement)) continue;
      const tag = tagOf(c);
      if (tag === 'tr') {
        const cells = c.childNodes.filter(
          (x): x is HTMLElement => x instanceof HTMLElement && (tagOf(x) === 'td' || tagOf(x) === 'th'),
        );
        if (cells.length) rows.push({ cells: cells.map(cellText), header: cells.map((x) => tagOf(x) === 'th') });
      } else if (tag === 'thead' || tag === 'tbody' || tag === 'tfoot') visit(c);
    }
  };
  visit(table);
  return rows;
}

/**
 * A table as a block. A key/value table (each row a header cell and a value: Apache's directive
 * synopsis, "Default: KeepAliveTimeout 5") gives rows "key: value" without a header row; otherwise
 * a first row of header cells is the header.
 */
export function tableBlock(table: HTMLElement, cellText: (cell: HTMLElement) => string): Block | null {
  const rows = tableRows(table, cellText).filter((r) => r.cells.some(Boolean));
  if (!rows.length) return null;
  const keyValue = rows.every((r) => r.cells.length === 2 && r.header[0] && !r.header[1]);
  if (keyValue)
    return {
      kind: 'table',
      text: '',
      header: [],
      rows: rows.map((r) => [r.cells[0]!.replace(/\s*:$/, ''), r.cells[1]!]),
    };
  const [first, ...rest] = rows;
  if (first!.header.every(Boolean) && rest.length)
    return { kind: 'table', text: '', header: first!.cells, rows: rest.map((r) => r.cells) };
  return { kind: 'table', text: '', header: [], rows: rows.map((r) => r.cells) };
}
