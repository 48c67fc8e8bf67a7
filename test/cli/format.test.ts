import { describe, expect, it } from 'vitest';
import { printable } from '../../src/cli/format.js';

// A model's text printed to a terminal: an escape sequence in it must not recolour or rewrite the
// screen, and the text itself stays readable.
describe('printable', () => {
  it('drops control characters, keeping newlines and tabs', () => {
    expect(printable('red \u001b[31mtext\u001b[0m\r over\nnext\tcell\u0007\u009b')).toBe(
      'red [31mtext[0m over\nnext\tcell',
    );
  });
});
