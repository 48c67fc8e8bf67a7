import { HTMLElement } from 'node-html-parser';
import type { Block } from '../blocks.js';
import { BOLD, tagOf } from './html-dom.js';

/** The rows of a table (not of tables nested in it), each as its cell elements. */
function rowCells(table: HTMLElement): HTMLElement[][] {
  const rows: HTMLElement[][] = [];
  const visit = (el: HTMLElement) => {
    for (const c of el.childNodes) {
      if (!(c instanceof HTMLElement)) continue;
      const tag = tagOf(c);
      if (tag === 'tr') {
        const cells = c.childNodes.filter(
          (x): x is HTMLElement => x instanceof HTMLElement && (tagOf(x) === 'td' || tagOf(x) === 'th'),
        );
        if (cells.length) rows.push(cells);
      } else if (tag === 'thead' || tag === 'tbody' || tag === 'tfoot') visit(c);
    }
  };
  visit(table);
  return rows;
}

/**
 * A header cell: `<th>`, or a cell that is all one bold run (mandoc's tables, many hand-written ones:
 * `<td><b>Keyword</b></td>`), which marks a header as `<th>` would.
 */
function isHeaderCell(cell: HTMLElement): boolean {
  if (tagOf(cell) === 'th') return true;
  const kids = cell.childNodes.filter((c) => (c instanceof HTMLElement ? true : c.text.trim()));
  const only = kids.length === 1 ? kids[0] : null;
  return only instanceof HTMLElement && BOLD.has(tagOf(only)) && only.text.trim() !== '';
}

/** The rows of a table, each as its cells' text, header cells marked. */
function tableRows(
  table: HTMLElement,
  cellText: (cell: HTMLElement) => string,
): { cells: string[]; header: boolean[] }[] {
  return rowCells(table).map((cells) => ({ cells: cells.map(cellText), header: cells.map(isHeaderCell) }));
}

/** The rows a table that lays a page out has at most: a row of columns, a banner above them. */
const LAYOUT_MAX_ROWS = 3;
const SECTION_PARTS = new Set(['p', 'ul', 'ol', 'dl', 'table', 'pre', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'div']);
const SECTION_HEADS = new Set(['ul', 'ol', 'dl', 'table', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6']);

/** A cell that holds a section of a page, not a value: a list or a heading among other blocks. */
function holdsSection(cell: HTMLElement): boolean {
  const parts = cell.childNodes.filter(
    (c): c is HTMLElement => c instanceof HTMLElement && SECTION_PARTS.has(tagOf(c)),
  );
  return parts.length >= 2 && parts.some((c) => SECTION_HEADS.has(tagOf(c)));
}

/**
 * A table that lays a page out instead of holding data (Postfix's index: one row of columns, each
 * headings and their lists): its cells are read as the page's own blocks, not as one row.
 */
export function isLayoutTable(table: HTMLElement): boolean {
  const rows = rowCells(table);
  return rows.length <= LAYOUT_MAX_ROWS && rows.some((cells) => cells.some(holdsSection));
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
