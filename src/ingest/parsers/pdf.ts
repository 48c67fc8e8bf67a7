import { cleanText, type Block, type ParsedDocument } from '../blocks.js';

/**
 * PDF text by layout blocks. pdfjs-dist (Mozilla's PDF.js) gives each text run with its position
 * and size; runs are grouped here into lines, lines into cells (wide horizontal gaps), and lines
 * into blocks: headings (larger type), tables (consecutive lines whose cells align in columns; the
 * first row is the header), list items, paragraphs, and running footers/headers (kept once, not
 * cut off: they often carry the revision and document number).
 */

interface Run {
  text: string;
  x: number;
  y: number;
  right: number;
  size: number;
  font: string;
}

interface Cell {
  x: number;
  right: number;
  text: string;
}

interface Line {
  page: number;
  y: number;
  size: number;
  cells: Cell[];
  text: string;
  pageHeight: number;
  /** Font of the line's longest run: a header row is usually set in another (bold) font. */
  font: string;
}

interface TextRunItem {
  str: string;
  transform: number[];
  width: number;
  height: number;
  fontName?: string;
}

const BULLET = /^(?:[•●◦▪‣∙·\-–—*]|\(?\d{1,3}[.)]|\(?[a-z][.)])\s+/;

export async function parsePdf(data: Uint8Array): Promise<ParsedDocument> {
  // pdf.js loads with the first PDF, not with every command
  const { getDocument } = await import('pdfjs-dist/legacy/build/pdf.mjs');
  const pdf = await getDocument({
    data,
    verbosity: 0,
    isEvalSupported: false,
    disableFontFace: true,
    useSystemFonts: false,
    stopAtErrors: false,
  }).promise;
  try {
    const lines: Line[] = [];
    for (let p = 1; p <= pdf.numPages; p++) {
      const page = await pdf.getPage(p);
      const viewport = page.getViewport({ scale: 1 });
      const content = await page.getTextContent();
      const runs: Run[] = [];
      for (const raw of content.items as unknown[]) {
        const it = raw as TextRunItem;
        if (typeof it.str !== 'string' || !it.str.trim() || !Array.isArray(it.transform)) continue;
        const [a = 0, b = 0, c = 0, d = 0, e = 0, f = 0] = it.transform;
        const size = Math.max(1, Math.hypot(c, d) || Math.hypot(a, b) || it.height);
        runs.push({ text: it.str, x: e, y: f, right: e + it.width, size, font: it.fontName ?? '' });
      }
      lines.push(...groupLines(runs, p, viewport.height));
      page.cleanup();
    }
    const meta = await pdf.getMetadata().catch(() => null);
    const info = (meta?.info ?? {}) as Record<string, unknown>;
    const metaTitle = typeof info.Title === 'string' ? cleanText(info.Title) : '';
    const blocks = toBlocks(lines);
    const title = metaTitle || blocks.find((bl) => bl.kind === 'heading')?.text || null;
    return { title, url: null, blocks };
  } finally {
    await pdf.destroy();
  }
}

function groupLines(runs: Run[], page: number, pageHeight: number): Line[] {
  runs.sort((r1, r2) => r2.y - r1.y || r1.x - r2.x);
  const rows: Run[][] = [];
  for (const r of runs) {
    const row = rows[rows.length - 1];
    if (row && Math.abs(row[0]!.y - r.y) <= 0.4 * Math.min(row[0]!.size, r.size)) row.push(r);
    else rows.push([r]);
  }
  return rows
    .map((row) => {
      row.sort((r1, r2) => r1.x - r2.x);
      const size = Math.max(...row.map((r) => r.size));
      const cells: Cell[] = [];
      for (const r of row) {
        const cell = cells[cells.length - 1];
        // A gap wider than ~1.5 em separates table cells; smaller gaps are word spaces.
        if (cell && r.x - cell.right <= 1.5 * size) {
          const space =
            r.x - cell.right > 0.15 * size && !cell.text.endsWith(' ') && !r.text.startsWith(' ') ? ' ' : '';
          cell.text += space + r.text;
          cell.right = Math.max(cell.right, r.right);
        } else {
          cells.push({ x: r.x, right: r.right, text: r.text });
        }
      }
      for (const c of cells) c.text = cleanText(c.text);
      const font = row.reduce((a, b) => (b.text.length > a.text.length ? b : a)).font;
      return {
        page,
        y: row[0]!.y,
        size,
        cells: cells.filter((c) => c.text),
        text: cleanText(cells.map((c) => c.text).join(' ')),
        pageHeight,
        font,
      };
    })
    .filter((l) => l.text);
}

const normalizeMarginal = (s: string) => s.toLowerCase().replace(/\d+/g, '#');
const PAGE_NUMBER = /^(?:page\s*)?#(?:\s*(?:of|\/)\s*#)?$/;

/**
 * Running headers and footers (lines in the top or bottom margin that repeat, or page numbers) as
 * footer blocks, once each; the other lines are the body.
 */
function splitMargins(lines: readonly Line[]): { footers: Block[]; body: Line[] } {
  const pages = new Set(lines.map((l) => l.page)).size;
  const isMarginal = (l: Line) => l.y < l.pageHeight * 0.07 || l.y > l.pageHeight * 0.95;
  const marginalCount = new Map<string, number>();
  for (const l of lines)
    if (isMarginal(l))
      marginalCount.set(normalizeMarginal(l.text), (marginalCount.get(normalizeMarginal(l.text)) ?? 0) + 1);

  const footers: Block[] = [];
  const seenFooters = new Set<string>();
  const body: Line[] = [];
  for (const l of lines) {
    if (
      isMarginal(l) &&
      (pages === 1 ||
        (marginalCount.get(normalizeMarginal(l.text)) ?? 0) >= 2 ||
        PAGE_NUMBER.test(normalizeMarginal(l.text)))
    ) {
      const key = normalizeMarginal(l.text);
      if (PAGE_NUMBER.test(key) || seenFooters.has(key)) continue;
      seenFooters.add(key);
      footers.push({ kind: 'footer', text: l.text, page: l.page });
    } else {
      body.push(l);
    }
  }
  return { footers, body };
}

function toBlocks(lines: Line[]): Block[] {
  const { footers: blocks, body } = splitMargins(lines);

  // Body type size: the size carrying the most characters.
  const bySize = new Map<number, number>();
  for (const l of body)
    bySize.set(Math.round(l.size * 2) / 2, (bySize.get(Math.round(l.size * 2) / 2) ?? 0) + l.text.length);
  const bodySize = [...bySize.entries()].sort((x, y) => y[1] - x[1])[0]?.[0] ?? 10;
  const headingSizes = [
    ...new Set(body.filter((l) => l.size >= bodySize * 1.15).map((l) => Math.round(l.size * 2) / 2)),
  ].sort((x, y) => y - x);

  const out: Block[] = [];
  let i = 0;
  while (i < body.length) {
    const l = body[i]!;
    if (l.size >= bodySize * 1.15 && l.cells.length === 1 && l.text.length <= 150) {
      out.push({
        kind: 'heading',
        text: l.text,
        level: headingSizes.indexOf(Math.round(l.size * 2) / 2) + 1,
        page: l.page,
      });
      i++;
      continue;
    }
    if (l.cells.length >= 2) {
      const table = readTable(body, i);
      if (table) {
        // Key/value lists ("Range   -55 °C to +85 °C") align like tables but have no header row.
        out.push(
          table.header
            ? { kind: 'table', text: '', header: table.header, rows: table.rows, page: l.page }
            : { kind: 'table', text: '', rows: table.rows, page: l.page },
        );
        i = table.next;
        continue;
      }
    }
    // Paragraph or list item: following lines of the same size and page, without a wide gap.
    const isItem = BULLET.test(l.text);
    let text = isItem ? l.text.replace(BULLET, '') : l.text;
    let j = i + 1;
    while (j < body.length) {
      const prev = body[j - 1]!;
      const next = body[j]!;
      const gap = prev.y - next.y;
      if (
        next.page !== prev.page ||
        next.cells.length >= 2 ||
        Math.abs(next.size - l.size) > 0.5 ||
        gap > 1.6 * l.size ||
        gap < 0
      )
        break;
      if (BULLET.test(next.text)) break;
      if (next.size >= bodySize * 1.15 && next.text.length <= 150) break;
      text =
        /[A-Za-z]-$/.test(text) && /^[a-z]/.test(next.text) ? text.slice(0, -1) + next.text : `${text} ${next.text}`;
      j++;
    }
    out.push({
      kind: isItem ? 'list_item' : 'paragraph',
      text: cleanText(text),
      page: l.page,
      ...(isItem ? { level: 1 } : {}),
    });
    i = j;
  }
  return [...out, ...blocks];
}

/** A table: a header line with ≥2 cells, then lines whose cells fall into the header's columns. */
function readTable(lines: Line[], start: number): { header: string[] | null; rows: string[][]; next: number } | null {
  const head = lines[start]!;
  const cols = head.cells.map((c) => ({ x: c.x, right: c.right }));
  const tol = 1.2 * head.size;
  const column = (c: Cell): number => {
    let best = -1;
    let bestDist = Infinity;
    cols.forEach((col, k) => {
      // left-aligned, right-aligned (numbers) or overlapping the header cell
      const dist = Math.min(
        Math.abs(c.x - col.x),
        Math.abs(c.right - col.right),
        c.x <= col.right && c.right >= col.x ? 0 : Infinity,
      );
      if (dist < bestDist) {
        bestDist = dist;
        best = k;
      }
    });
    return bestDist <= tol ? best : -1;
  };
  const rows: string[][] = [];
  let j = start + 1;
  while (j < lines.length) {
    const l = lines[j]!;
    const prev = lines[j - 1]!;
    if (l.page !== head.page || prev.y - l.y > 2.5 * head.size || l.cells.length < 2) break;
    const row = cols.map(() => '');
    let ok = true;
    for (const c of l.cells) {
      const k = column(c);
      if (k < 0) {
        ok = false;
        break;
      }
      row[k] = row[k] ? `${row[k]} ${c.text}` : c.text;
    }
    if (!ok) break;
    rows.push(row);
    j++;
  }
  if (rows.length === 0) return null;
  const headCells = head.cells.map((c) => c.text);
  // The first line is a header when it is set apart (another font, e.g. bold) or holds no figures.
  const isHeader = head.font !== lines[start + 1]!.font || !headCells.some((c) => /\d/.test(c));
  return isHeader ? { header: headCells, rows, next: j } : { header: null, rows: [headCells, ...rows], next: j };
}
