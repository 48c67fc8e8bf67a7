import { describe, expect, it } from 'vitest';
import { wholeValue } from '../../../src/engine/answer/whole-value.js';

/** The value a person reads when the reader's span is `value` inside `text`. */
function read(text: string, value: string): string {
  const start = text.indexOf(value);
  const w = wholeValue(text, start, start + value.length);
  return text.slice(w.start, w.end);
}

describe('a short answer is whole', () => {
  it.each([
    ['Each change needs at least 2 reviewers before it merges.', '2', 'at least 2 reviewers'],
    ['The index supports up to 5 dimensions per table.', '5', 'up to 5 dimensions'],
    ['Backups are kept for 90 days, then purged.', '90', '90 days'],
    ['The nightly job takes about 15 minutes on a quiet host.', '15', 'about 15 minutes'],
    ['Each worker gets a buffer of 8 MB at start.', '8', '8 MB'],
    ['Approval needs no more than 3 signatures.', '3', 'no more than 3 signatures'],
  ])('%s → %s', (text, span, whole) => {
    expect(read(text, span)).toBe(whole);
  });

  it.each([
    // a preposition, a name or the end of the sentence follows: the number is the whole value
    ['Set the retry count to 100 for the batch queue.', '100', '100'],
    ['The hard limit is 64.', '64', '64'],
    ['Release 7 Falcon ships in May.', '7', '7'],
    // not a bare number: the reader's span is kept as read
    ['The flag is --max-size=10M on every host.', '--max-size=10M', '--max-size=10M'],
  ])('%s → %s stays %s', (text, span, whole) => {
    expect(read(text, span)).toBe(whole);
  });
});
