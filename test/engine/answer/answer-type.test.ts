import { describe, expect, it } from 'vitest';
import {
  asksForDefault,
  expectedType,
  firstValue,
  statesDefaultBefore,
  typedRanges,
  typeFit,
  valueWithin,
} from '../../../src/engine/answer/answer-type.js';

describe('the kind of value a question asks for', () => {
  it('reads numbers, names, paths and how-tos from the words of the question', () => {
    expect(expectedType('How many seconds does the cache keep an entry?')).toBe('number');
    expect(expectedType("What's the default timeout of the client?")).toBe('number');
    expect(expectedType('Which calibration offset applies at −20 °C?')).toBe('number');
    // "status / error / exit code" went with the ablation: on a set it was not written from it cost a first line
    expect(expectedType('What status code does the server send back?')).toBe('any');
    expect(expectedType('Which module has to be loaded for this?')).toBe('identifier');
    // "is there a … <noun>" went with the same ablation: no wh-phrase, no kind
    expect(expectedType('Is there an environment variable that turns it off?')).toBe('any');
    expect(expectedType('Which format code logs 0 instead of a dash?')).toBe('identifier');
    expect(expectedType('Where does the server write its pid file?')).toBe('path');
    expect(expectedType('How do I reload the configuration?')).toBe('command');
    expect(expectedType('Who leads Project Falcon?')).toBe('any');
  });

  it('reads each cue list of data/answer-types.json, in phrasing written for the test', () => {
    // numberCues: a cue phrase anywhere, as whole words
    expect(expectedType('The batch job: how often does it wake up?')).toBe('number');
    expect(expectedType('The importer stops; in how many hours is it retried?')).toBe('number');
    expect(expectedType('Is the lag given in milliseconds?')).toBe('number');
    expect(expectedType('Since which release can the gizmo stream?')).toBe('number');
    // superlatives, after "what's / what is / what are the"
    expect(expectedType('What is the longest a ticket may wait?')).toBe('number');
    // quantityNouns and nameNouns head a which/what phrase of at most three more words
    expect(expectedType('Which reconnect back-off interval does the agent use?')).toBe('number');
    expect(expectedType('What lovely shiny new plugin handler loads it?')).toBe('any');
    expect(expectedType('What shiny new plugin handler loads it?')).toBe('identifier');
    // howToCues and howToOpenings
    expect(expectedType('How would one rotate the signing keys safely?')).toBe('command');
    expect(expectedType('how to rotate the signing keys?')).toBe('command');
    expect(expectedType('Tell me how to rotate the signing keys')).toBe('any');
    // pathOpenings and pathCues
    expect(expectedType('Where do the nightly dumps go?')).toBe('path');
    expect(expectedType('The nightly dumps: which folder holds them?')).toBe('path');
    // a cue inside a longer word is not said, nor one inside a snake_case name
    expect(expectedType('Somehow many things broke overnight?')).toBe('any');
    expect(expectedType('What is the max_retries setting for?')).toBe('identifier');
  });

  it('hears a question for a default by the cues of data/cues.json, as whole words', () => {
    expect(asksForDefault('What value does the queue depth start at by default?')).toBe(true);
    expect(asksForDefault('Which log level ships out of the box?')).toBe(true);
    expect(asksForDefault('What are the defaults for the backup window?')).toBe(true);
    // no cue, or a cue's letters inside another word
    expect(asksForDefault('How many retries happen when it is 0?')).toBe(false);
    expect(asksForDefault('Where does the defaultsfile option point?')).toBe(false);
  });
});

describe('a default stated in prose', () => {
  const at = (text: string, value: string) => statesDefaultBefore(text, text.indexOf(value));

  it('is the value its own sentence names as the default', () => {
    expect(at('The number of seconds before probes start. The default value is 7200 seconds.', '7200')).toBe(true);
    expect(at('tcp_keepalive_time (integer; default: 7200; since Linux 2.2)', '7200')).toBe(true);
    expect(at('Sets the interval. It defaults to 30 seconds.', '30')).toBe(true);
  });

  it('is not a value of another sentence, a default of the past, nor one said far after the word', () => {
    expect(at('The default is 3. Older kernels retried 6 times.', '6')).toBe(false);
    expect(at('The timeout is given in seconds and is capped at 30.', '30')).toBe(false);
    expect(at('In Linux 2.2, the default value was 180.', '180')).toBe(false);
    const far = `The default applies to every listener that the server opens at start-up, and the limit is ${'x'.repeat(10)} 40.`;
    expect(at(far, '40')).toBe(false);
  });
});

describe('how a span fits', () => {
  it('tells a value from a description, and a name from a sentence', () => {
    expect(typeFit('number', '64 megabytes')).toBe(1);
    expect(typeFit('number', 'TLSv1.2')).toBe(1);
    expect(typeFit('number', 'the maximum amount of memory')).toBe(-1);
    expect(typeFit('identifier', 'mod_authz_host')).toBe(1);
    expect(typeFit('identifier', 'the module that checks hosts')).toBe(-1);
    expect(typeFit('path', '/tmp/mod_cache-lock')).toBe(1);
    expect(typeFit('any', 'anything at all')).toBe(0);
  });

  it('ends a value at the value and its unit, signs and all', () => {
    const span = '+0.30 °C to the Vantor TS-40';
    const v = firstValue(span)!;
    expect(span.slice(v.start, v.end)).toBe('+0.30 °C');
    const cut = valueWithin('number', 'ListenBackLog 511');
    expect('ListenBackLog 511'.slice(cut.start, cut.end)).toBe('511');
    expect(valueWithin('number', 'one minute')).toEqual({ start: 0, end: 10 });
    // a scale word belongs to its number
    const sold = '150 million records worldwide';
    const scaled = valueWithin('number', sold);
    expect(sold.slice(scaled.start, scaled.end)).toBe('150 million');
    // a percent sign is the unit, though no word boundary follows it
    const share = 'size=50% of the RAM';
    const pct = valueWithin('number', share);
    expect(share.slice(pct.start, pct.end)).toBe('50%');
    expect(valueWithin('identifier', 'apache2ctl configtest')).toEqual({ start: 0, end: 21 });
  });

  // [what the question asks for, the span as read, the value shown]
  const cuts: [Parameters<typeof valueWithin>[0], string, string][] = [
    ['path', 'file logs/httpd.pid', 'logs/httpd.pid'],
    ['path', 'the standard input', 'the standard input'],
    ['command', 'use LogLevel warn core:info', 'LogLevel warn core:info'],
    ['command', 'httpd -k graceful', 'httpd -k graceful'],
    // a verb stays where no code follows it: it may be the command's own word
    ['command', 'run tests', 'run tests'],
    ['identifier', 'the htdigest tool', 'htdigest'],
    ['identifier', 'SSL_XXX variables', 'SSL_XXX'],
    ['identifier', 'Protocols h2 http/1.1', 'Protocols h2 http/1.1'],
    // the sentence's punctuation goes, the value's own brackets stay
    ['path', 'in $XDG_CONFIG_HOME/git/ignore. If', '$XDG_CONFIG_HOME/git/ignore'],
    ['path', 'the file (/tmp/mod_cache-lock),', '/tmp/mod_cache-lock'],
    ['command', 'run git log --oneline <commit>', 'git log --oneline <commit>'],
    ['identifier', 'the "force-gzip" variable', 'force-gzip'],
  ];
  it.each(cuts)('cuts a %s out of the prose read with it: "%s" → "%s"', (expected, span, shown) => {
    const v = valueWithin(expected, span);
    expect(span.slice(v.start, v.end)).toBe(shown);
  });
});

describe('where values of a kind stand in a text', () => {
  const at = (expected: Parameters<typeof typedRanges>[0], text: string) =>
    typedRanges(expected, text).map(([a, b]) => text.slice(a, b));

  it('finds numbers with their units, versions and codes for a number', () => {
    const text = 'Default: LimitRequestFieldSize 8190; see AH00534 (since 2.4.8), at most 30 seconds.';
    expect(at('number', text)).toEqual(expect.arrayContaining(['8190', 'AH00534', '2.4.8', '30 seconds']));
    expect(at('number', text)).not.toContain('LimitRequestFieldSize');
  });

  it('finds names as the documents write them, without the punctuation around them', () => {
    const text = 'There is an environment variable force-gzip, set via SetEnv (see mod_deflate).';
    expect(at('identifier', text)).toEqual(['force-gzip', 'SetEnv', 'mod_deflate']);
    expect(at('path', 'The lock files go to /tmp/mod_cache-lock; logs to stdin.')).toEqual([
      '/tmp/mod_cache-lock',
      'stdin',
    ]);
  });

  it('offers nothing when the question asks for no kind in particular', () => {
    expect(at('any', 'Default: KeepAliveTimeout 5')).toEqual([]);
  });
});
