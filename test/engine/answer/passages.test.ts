import { describe, expect, it } from 'vitest';
import { cellValues, passageTitle } from '../../../src/engine/answer/passages.js';

describe('passages for the reader', () => {
  it('lets an answer of a table row stand only inside one cell value, never across cells or in a header', () => {
    const row = 'Name: Mirela Ostrowski; Role: Project lead, Falcon; Office: Tromsø';
    expect(cellValues(row).map(([a, b]) => row.slice(a, b))).toEqual([
      'Mirela Ostrowski',
      'Project lead, Falcon',
      'Tromsø',
    ]);
    const plain = 'FC-3 | 3.2.1 | fixed the watchdog';
    expect(cellValues(plain).map(([a, b]) => plain.slice(a, b))).toEqual(['FC-3', '3.2.1', 'fixed the watchdog']);
    expect(cellValues('Offset: +0.35 °C').map(([a, b]) => 'Offset: +0.35 °C'.slice(a, b))).toEqual(['+0.35 °C']);
  });

  it('titles a chunk by its document and the headings under which it stands', () => {
    expect(passageTitle({ headingPath: ['Calibration', 'Cold range'], doc: { title: 'Vantor TS-40' } })).toBe(
      'Vantor TS-40 > Calibration > Cold range',
    );
    expect(passageTitle({ headingPath: ['Vantor TS-40'], doc: { title: 'Vantor TS-40' } })).toBe('Vantor TS-40');
  });
});
