#!/usr/bin/env node
// Writes data/sample/datasheets/vantor-ts40.pdf, the sample corpus's PDF datasheet (committed; rerun
// only to change it). pdf-lib (dev dependency) lays out text at fixed positions, so the file has
// what real datasheets have: headings in larger type, a calibration table, running footers.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { PDFDocument, StandardFonts, rgb } from 'pdf-lib';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const out = path.join(root, 'data', 'sample', 'datasheets', 'vantor-ts40.pdf');

const doc = await PDFDocument.create();
doc.setTitle('Vantor TS-40 Temperature Sensor Datasheet');
doc.setAuthor('Halden Microsystems');
doc.setCreationDate(new Date('2024-02-01T00:00:00Z'));
doc.setModificationDate(new Date('2024-02-01T00:00:00Z'));
const regular = await doc.embedFont(StandardFonts.Helvetica);
const bold = await doc.embedFont(StandardFonts.HelveticaBold);

const W = 595;
const H = 842;
const footer = (page, n) =>
  page.drawText(`Halden Microsystems - Document HM-TS40-DS Rev C - February 2024 - page ${n} of 2`, {
    x: 50,
    y: 28,
    size: 8,
    font: regular,
    color: rgb(0.3, 0.3, 0.3),
  });

function paragraph(page, text, y, { size = 10, font = regular, width = 95 } = {}) {
  const words = text.split(' ');
  let line = '';
  for (const w of words) {
    if (`${line} ${w}`.trim().length > width) {
      page.drawText(line.trim(), { x: 50, y, size, font });
      y -= size * 1.35;
      line = w;
    } else line += ` ${w}`;
  }
  if (line.trim()) {
    page.drawText(line.trim(), { x: 50, y, size, font });
    y -= size * 1.35;
  }
  return y - size * 0.8;
}

// Page 1: overview and specifications
let p = doc.addPage([W, H]);
let y = 780;
p.drawText('Vantor TS-40', { x: 50, y, size: 22, font: bold });
y -= 26;
p.drawText('Precision digital temperature sensor', { x: 50, y, size: 13, font: regular });
y -= 36;
p.drawText('Overview', { x: 50, y, size: 14, font: bold });
y -= 20;
y = paragraph(
  p,
  'The Vantor TS-40 is a digital platinum-film temperature sensor made by Halden Microsystems for airborne and outdoor use. It reports temperature over an I2C bus with 0.01 degree resolution.',
  y,
);
p.drawText('Specifications', { x: 50, y, size: 14, font: bold });
y -= 20;
for (const [k, v] of [
  ['Range', '-55 °C to +85 °C'],
  ['Accuracy after calibration', '±0.1 °C from -40 °C to +50 °C'],
  ['Response time', '2.5 s in moving air'],
  ['Supply', '3.3 V, 180 µA'],
]) {
  p.drawText(k, { x: 50, y, size: 10, font: regular });
  p.drawText(v, { x: 260, y, size: 10, font: regular });
  y -= 15;
}
y -= 10;
y = paragraph(
  p,
  'Each sensor leaves the factory with a calibration certificate. Apply the offsets of the calibration table on page 2 to raw readings.',
  y,
);
footer(p, 1);

// Page 2: calibration table
p = doc.addPage([W, H]);
y = 780;
p.drawText('Calibration', { x: 50, y, size: 14, font: bold });
y -= 20;
y = paragraph(
  p,
  'Add the offset to the raw reading at the nearest calibration point; interpolate linearly between points.',
  y,
);
const cols = [50, 190, 330];
for (const [i, h] of ['Temperature', 'Offset', 'Uncertainty (k=2)'].entries())
  p.drawText(h, { x: cols[i], y, size: 10, font: bold });
y -= 16;
for (const row of [
  ['-40 °C', '+0.42 °C', '0.05 °C'],
  ['-20 °C', '+0.35 °C', '0.04 °C'],
  ['0 °C', '+0.18 °C', '0.03 °C'],
  ['+25 °C', '0.00 °C', '0.03 °C'],
  ['+50 °C', '-0.12 °C', '0.05 °C'],
]) {
  row.forEach((cell, i) => {
    p.drawText(cell, { x: cols[i], y, size: 10, font: regular });
  });
  y -= 15;
}
y -= 20;
p.drawText('Storage', { x: 50, y, size: 14, font: bold });
y -= 20;
y = paragraph(p, 'Store between -40 °C and +70 °C in the sealed bag with desiccant. Recalibrate every 12 months.', y);
footer(p, 2);

fs.writeFileSync(out, await doc.save({ useObjectStreams: false }));
process.stdout.write(`wrote ${path.relative(root, out)}\n`);
