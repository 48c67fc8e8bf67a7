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
    ['The lock is held for 1 hour at most.', '1', '1 hour'],
    // a limit stated with "more than" has the number as its value, with what it counts
    ['Joins of more than 64 tables are refused.', '64', '64 tables'],
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
    // a singular noun after a number other than 1 is not what it counts: a year, a code, a verb
    ['The handbook was first printed in 1998 book form.', '1998', '1998'],
    ['A 500 error page is shown instead.', '500', '500'],
    // a number inside a token (a fraction, a version) is not widened
    ['Rows should stay under about 1/20th of a page.', '1', '1'],
  ])('%s → %s stays %s', (text, span, whole) => {
    expect(read(text, span)).toBe(whole);
  });
});
