import { describe, expect, it } from 'vitest';
import type { EvidencePassage } from '../../../src/engine/answer/passages.js';
import { readAnswer } from '../../../src/engine/answer/read.js';
import type { HopState, Snippet } from '../../../src/engine/types.js';
import { askedPart } from '../../../src/engine/answer/read-comparison.js';
import { CONFLICT_MARGIN, type AnswerReader } from '../../../src/engine/answer/reading.js';
import type { ReaderPassage, ReaderResult, ReaderWindow } from '../../../src/models/reader-types.js';

// The reading logic on a scripted reader: what it does with the reader's output (bridges passed
// over, rivals, comparisons), independent of any one model's weights. The real model is tested in
// test/models/reader.test.ts and end to end in test/engine/engine.test.ts.

function passage(id: number, title: string, text: string, docId = id): EvidencePassage {
  const snippet: Snippet = {
    chunkId: id,
    docId,
    windowId: null,
    text,
    score: 0.8,
    citation: { document: title, source: `/d/${docId}.md`, heading_path: [], page: null, url: null },
  };
  return { snippet, text, title, hop: 1, weight: 1, confirmed: true, rank: id - 1 };
}

type Script = (question: string, passages: readonly ReaderPassage[]) => ReaderWindow[];

/** A reader that answers by script, and records what it was asked. */
function scripted(script: Script): AnswerReader & { calls: { question: string; titles: string[] }[] } {
  const calls: { question: string; titles: string[] }[] = [];
  return {
    calls,
    async read(question, passages) {
      calls.push({ question, titles: passages.map((p) => p.title) });
      const windows = script(question, passages);
      let best = 0;
      windows.forEach((w, i) => {
        if (w.probs.none < windows[best]!.probs.none) best = i;
      });
      const w = windows[best]!;
      const kind =
        w.probs.yes > w.probs.span && w.probs.yes > w.probs.no ? 'yes' : w.probs.no > w.probs.span ? 'no' : 'span';
      const result: ReaderResult = {
        windows,
        kind,
        pAnswer: 1 - w.probs.none,
        pKind: 0.9,
        window: best,
        span: kind === 'span' ? (w.spans[0] ?? null) : null,
        ms: 1,
      };
      return result;
    },
  };
}

/** A window over `passages` whose spans are the given texts (found in those passages), best first. */
function window(
  passages: readonly ReaderPassage[],
  texts: string[],
  probs: Partial<ReaderWindow['probs']> = {},
  scores?: number[],
): ReaderWindow {
  const spans = texts.map((text, i) => {
    const p = passages.findIndex((x) => x.text.includes(text));
    const start = passages[p]!.text.indexOf(text);
    return { passage: p, start, end: start + text.length, text, score: scores?.[i] ?? 10 - i, window: 0 };
  });
  return { passages: passages.map((_, i) => i), probs: { span: 0.9, yes: 0, no: 0, none: 0.1, ...probs }, spans };
}

const hop = (bridge: string | null): HopState =>
  ({
    hop: 1,
    query: 'q',
    formedBy: bridge ? 'slot-fill' : 'question',
    bridge,
    weight: 1,
    retrieved: [],
    snippets: [],
    candidates: [],
    nextQuery: null,
    coherence: null,
    timings: {} as HopState['timings'],
    incomplete: false,
  }) as HopState;

describe('what the reader is given, and the value taken back', () => {
  it('reads a minus sign or dash as "-", and shows the value as the document writes it, sign included', async () => {
    const row = passage(1, 'TS-40 datasheet', 'Temperature: −40 °C; Offset: −0.42 °C');
    const reader = scripted((_, ps) => [window(ps, ['0.42 °C'])]);
    const r = await readAnswer(reader, 'Which offset applies at −40 °C?', [hop(null)], [row], false);
    // the reader saw ASCII hyphens in the question and the passage ...
    expect(reader.calls[0]!.question).toBe('Which offset applies at -40 °C?');
    // ... and the value is the document's own text, with the sign the word pieces split off
    expect(r.value).toBe('−0.42 °C');
    expect(row.text.slice(r.start, r.end)).toBe(r.value);
  });

  it("keeps the reader's doubt as a feature of the reading, not a veto: the confidence weighs it", async () => {
    const p = passage(1, 'Approved suppliers', 'Particula AB, Toulouse; Halden Microsystems, Oslo');
    const doubts = scripted((_, ps) => [window(ps, ['Toulouse'], { span: 0.23, none: 0.77 }, [14])]);
    const r = await readAnswer(doubts, 'Where is Particula AB?', [hop(null)], [p], false);
    expect(r.value).toBe('Toulouse');
    expect(r.features.pAnswer).toBeCloseTo(0.23, 6);
  });

  it('reads a hyphen inside a word as part of the word, not as a minus sign', async () => {
    const p = passage(1, 'Parts', 'The part number is FC-3 for the flight computer.');
    const reader = scripted((_, ps) => [window(ps, ['3 for the flight computer'])]);
    const r = await readAnswer(reader, 'Which part?', [hop(null)], [p], false);
    expect(r.value).toBe('FC-3 for the flight computer');
  });

  it('widens a span that ends or starts inside a written token to the whole token', async () => {
    const p = passage(
      1,
      'mod_remoteip',
      'Use RemoteIPHeader X-Client-IP behind the balancer; or LogLevel warn core:info.',
    );
    const reader = scripted((_, ps) => [window(ps, ['RemoteIPHeader X', 'Client-IP'])]);
    const r = await readAnswer(reader, 'Which header line do we add?', [hop(null)], [p], false);
    expect(r.value).toBe('RemoteIPHeader X-Client-IP');
    // a full stop or a label's colon followed by a space still ends a token
    const end = scripted((_, ps) => [window(ps, ['warn core'])]);
    const e = await readAnswer(end, 'Which level?', [hop(null)], [p], false);
    expect(e.value).toBe('warn core:info');
    // a prose prefix before a hyphen is not part of the value
    const era = passage(2, 'History', 'It was founded in the mid-19th century by monks.');
    const prose = scripted((_, ps) => [window(ps, ['19th century'])]);
    expect((await readAnswer(prose, 'In which era did the monks arrive?', [hop(null)], [era], false)).value).toBe(
      '19th century',
    );
    // a path keeps its root and a variable its sigil
    const files = passage(3, 'ld.so', 'The cache is /etc/ld.so.cache, set by $LD_LIBRARY_PATH or ~/.profile.');
    // the value read when the reader's span is `span` of the passage `p`
    const at = async (span: string, p: EvidencePassage = files) =>
      (
        await readAnswer(
          scripted((_, ps) => [window(ps, [span])]),
          'Which one?',
          [hop(null)],
          [p],
          false,
        )
      ).value;
    expect(await at('etc/ld.so.cache')).toBe('/etc/ld.so.cache');
    expect(await at('LD_LIBRARY_PATH')).toBe('$LD_LIBRARY_PATH');
    expect(await at('.profile')).toBe('~/.profile');
    // a URL's query and a key's value are part of the token: the pre-tokenizer splits at "?" and "="
    const status = passage(4, 'mod_status', 'Read http://host/server-status?auto for machines; set size=10M.');
    expect(await at('http://host/server-status', status)).toBe('http://host/server-status?auto');
    expect(await at('size', status)).toBe('size=10M');
  });
});

describe('what the question asks for', () => {
  const work = passage(
    1,
    'Server settings',
    'maintenance_work_mem sets the maximum amount of memory used by maintenance operations. The default is 64 megabytes.',
  );

  it('takes the value over a description that the reader scores higher, for "how much"', async () => {
    const reader = scripted((_, ps) => [window(ps, ['the maximum amount of memory', '64 megabytes'], {}, [12, 11])]);
    const r = await readAnswer(
      reader,
      'How much memory do maintenance operations get by default?',
      [hop(null)],
      [work],
      false,
    );
    expect(r.value).toBe('64 megabytes');
    expect(r.features.expected).toBe('number');
    expect(r.features.typeFit).toBe(1);
    // a description is not a value however far ahead the reader puts it, while a value is near
    const far = scripted((_, ps) => [window(ps, ['the maximum amount of memory', '64 megabytes'], {}, [16, 8])]);
    const farRead = await readAnswer(
      far,
      'How much memory may maintenance operations use?',
      [hop(null)],
      [work],
      false,
    );
    expect(farRead.value).toBe('64 megabytes');
    // without a kind asked for, the reader's own order stands
    const plain = await readAnswer(reader, 'Tell me about maintenance operations memory', [hop(null)], [work], false);
    expect(plain.value).toBe('the maximum amount of memory');
  });

  it('takes a name over a sentence for "which program", and ends a value at the value', async () => {
    const tools = passage(
      2,
      'Log files',
      'Use the bundled logresolve program to turn the IP addresses of a log into host names after the fact.',
    );
    const reader = scripted((_, ps) => [
      window(ps, ['turn the IP addresses of a log into host names', 'logresolve'], {}, [12, 10]),
    ]);
    expect(
      (
        await readAnswer(
          reader,
          'Which bundled program turns IPs in the log into hostnames?',
          [hop(null)],
          [tools],
          false,
        )
      ).value,
    ).toBe('logresolve');
    const notes = passage(
      3,
      'Field notes',
      'At the −20 °C point we applied an offset of +0.30 °C to the Vantor TS-40 readings.',
    );
    const long = scripted((_, ps) => [window(ps, ['+0.30 °C to the Vantor TS-40'])]);
    const r = await readAnswer(
      long,
      'Which calibration offset applies at −20 °C to the sensor?',
      [hop(null)],
      [notes],
      false,
    );
    expect(r.value).toBe('+0.30 °C');
    expect(notes.text.slice(r.start, r.end)).toBe('+0.30 °C');
  });

  it('reads the value its sentence states as the default, for a question that asks for the default', async () => {
    const keepalive = passage(
      1,
      'tcp_keepalive_time',
      'The number of seconds a connection needs to be idle before TCP sends keep-alive probes. ' +
        'The default value is 7200 seconds (2 hours). An idle connection is terminated after approximately ' +
        'an additional 11 minutes when keep-alive is enabled.',
    );
    // the reader prefers the other figure by two logits: less than the stated default's weight
    const reader = scripted((_, ps) => [window(ps, ['11 minutes', '7200 seconds'], {}, [10, 8])]);
    const asked = await readAnswer(
      reader,
      'By default, how long must a connection sit idle before the probes start?',
      [hop(null)],
      [keepalive],
      false,
    );
    expect(asked.value).toBe('7200 seconds');
    const other = await readAnswer(
      reader,
      'How long after the probes start is an idle connection terminated?',
      [hop(null)],
      [keepalive],
      false,
    );
    expect(other.value).toBe('11 minutes');
  });
});

describe('the question the reader reads', () => {
  it('is the sentence that asks, without the setting told before it', () => {
    expect(
      askedPart(
        'A client with enormous cookies is getting rejected. By default, how many bytes is a single request header field allowed to be?',
      ),
    ).toBe('By default, how many bytes is a single request header field allowed to be?');
    // one sentence, a question without a question mark, abbreviations: the question as asked
    expect(askedPart('Who is the U.S. president that signed the act?')).toBe(
      'Who is the U.S. president that signed the act?',
    );
    expect(askedPart('Tell me the default timeout. Thanks')).toBe('Tell me the default timeout. Thanks');
  });

  it('is given to the reader; the whole question still decides what kind of value is asked and what is not an answer', async () => {
    const notes = passage(
      1,
      'Log files',
      'HostnameLookups slows every request. The logresolve program fills in host names later.',
    );
    const reader = scripted((_, ps) => [window(ps, ['HostnameLookups', 'logresolve'], {}, [12, 10])]);
    const r = await readAnswer(
      reader,
      'We keep HostnameLookups off for speed. Which bundled program can turn the IPs into hostnames afterwards?',
      [hop(null)],
      [notes],
      false,
    );
    expect(reader.calls[0]!.question).toBe('Which bundled program can turn the IPs into hostnames afterwards?');
    // "HostnameLookups" is said by the setting: never the answer
    expect(r.value).toBe('logresolve');
  });

  it('offers the reader every value of the kind asked for, to score whole', async () => {
    const seen: ReaderPassage[][] = [];
    const reader = scripted((_, ps) => {
      seen.push([...ps]);
      return [window(ps, ['connection'])];
    });
    const text = 'MaxKeepAliveRequests 500 keeps a connection busy; the default is 100 requests.';
    await readAnswer(
      reader,
      'How many requests are served per connection?',
      [hop(null)],
      [passage(1, 'Core', text)],
      false,
    );
    const ranges = seen[0]![0]!.candidateRanges!.map(([a, b]) => text.slice(a, b));
    expect(ranges).toEqual(expect.arrayContaining(['500', '100 requests']));
    expect(ranges).not.toContain('connection');
  });
});

describe('reading the answer off the evidence', () => {
  const project = passage(1, 'INC-2024-031', 'The drone of Project Falcon lost telemetry on 2024-03-14.');
  const falcon = passage(2, 'Project Falcon', 'Project Falcon is led by Mirela Ostrowski from the Tromsø office.');

  it('passes over a bridge entity of the chain and a span the question already says', async () => {
    const reader = scripted((_, ps) => [window(ps, ['Project Falcon', '2024-03-14', 'Mirela Ostrowski'])]);
    // the chain went on from Project Falcon (to a third hop): the way there, never the answer
    const r = await readAnswer(
      reader,
      'Who leads the project whose drone lost telemetry on 2024-03-14?',
      [hop(null), hop('Project Falcon'), hop('Falcon team')],
      [project, falcon],
      false,
    );
    expect(r.kind).toBe('span');
    expect(r.value).toBe('Mirela Ostrowski');
    expect(r.passage).toBe(falcon);
    expect(falcon.text.slice(r.start, r.end)).toBe('Mirela Ostrowski');
  });

  it('may answer with the bridge the chain arrived at, whole, but never with a part of an earlier one', async () => {
    const people = passage(3, 'People directory', 'Name: Mirela Ostrowski; Role: Project lead, Falcon');
    const reader = scripted((_, ps) => [window(ps, ['Mirela Ostrowski', 'Ostrowski'])]);
    const q = 'Who leads the project whose drone lost telemetry on 2024-03-14?';
    const arrived = await readAnswer(
      reader,
      q,
      [hop(null), hop('Project Falcon'), hop('Mirela Ostrowski')],
      [falcon, people],
      false,
    );
    expect(arrived.value).toBe('Mirela Ostrowski');
    const partOfEarlier = scripted((_, ps) => [window(ps, ['Falcon', 'Mirela Ostrowski'])]);
    expect(
      (
        await readAnswer(
          partOfEarlier,
          q,
          [hop(null), hop('Project Falcon'), hop('Mirela Ostrowski')],
          [falcon, people],
          false,
        )
      ).value,
    ).toBe('Mirela Ostrowski');
  });

  it('names another document that reads differently close behind as a rival, not one far behind', async () => {
    const notes = passage(3, 'Field notes', 'In the field the Falcon team found Jonas Weber in charge.', 9);
    const close = await readAnswer(
      scripted((_, ps) => [window(ps, ['Mirela Ostrowski', 'Jonas Weber'], {}, [10, 10 - CONFLICT_MARGIN / 2])]),
      'Who leads Falcon?',
      [],
      [falcon, notes],
      false,
    );
    expect(close.rivals.map((x) => x.value)).toEqual(['Jonas Weber']);
    expect(close.features.conflict).toBe(true);
    // one reading per other source: its runner-up is not another source
    const twice = await readAnswer(
      scripted((_, ps) => [
        window(ps, ['Mirela Ostrowski', 'Jonas Weber', 'Falcon team'], {}, [
          10,
          10 - CONFLICT_MARGIN / 2,
          10 - CONFLICT_MARGIN * 0.9,
        ]),
      ]),
      'Who leads Falcon?',
      [],
      [falcon, notes],
      false,
    );
    expect(twice.rivals.map((x) => x.value)).toEqual(['Jonas Weber']);
    const far = await readAnswer(
      scripted((_, ps) => [window(ps, ['Mirela Ostrowski', 'Jonas Weber'], {}, [10, 10 - 2 * CONFLICT_MARGIN])]),
      'Who leads Falcon?',
      [],
      [falcon, notes],
      false,
    );
    expect(far.rivals).toEqual([]);
    expect(far.features.margin).toBeCloseTo(2 * CONFLICT_MARGIN, 9);
  });

  it('reads a yes/no comparison from the two passages the question names, side by side', async () => {
    const keel = passage(1, 'Marta Keel', 'Marta Keel (1902–1977) was a Swiss painter.');
    const other = passage(2, 'Alpine art', 'Alpine art flourished in the 1920s.');
    const brandt = passage(3, 'Oskar Brandt', 'Oskar Brandt (1899–1960) was a German painter.');
    const reader = scripted((_, ps) => [window(ps, [], { span: 0.05, yes: 0.8, no: 0.1, none: 0.05 })]);
    const r = await readAnswer(
      reader,
      'Were Marta Keel and Oskar Brandt both painters?',
      [],
      [keel, other, brandt],
      false,
    );
    expect(r.value).toBe('yes');
    expect(reader.calls).toHaveLength(1);
    expect(reader.calls[0]!.titles.sort()).toEqual(['Marta Keel', 'Oskar Brandt']);
    expect(r.comparison!.options.map((o) => o.entity).sort()).toEqual(['Marta Keel', 'Oskar Brandt']);
    expect(r.features.comparison).toBe('yesno');
  });

  it('decides "who is older" by the birth date read from each one\'s own passage', async () => {
    const ada = passage(1, 'Ada Brook', 'Ada Brook (born 12 May 1950) is a British chemist.');
    const carl = passage(2, 'Carl Dunn', 'Carl Dunn (born 3 March 1948) is an American chemist.');
    const reader = scripted((q, ps) => [window(ps, [q.includes('Ada') ? '12 May 1950' : '3 March 1948'])]);
    const r = await readAnswer(reader, 'Who is older, Ada Brook or Carl Dunn?', [], [ada, carl], false);
    expect(reader.calls.map((c) => c.question)).toEqual(['When was Ada Brook born?', 'When was Carl Dunn born?']);
    expect(r.value).toBe('Carl Dunn');
    expect(carl.text.slice(r.start, r.end)).toBe('Carl Dunn');
    expect(r.comparison!.options.map((o) => o.value)).toEqual(['12 May 1950', '3 March 1948']);
    expect(r.features.comparison).toBe('choice-attribute');
  });

  it('marks a reading whose chain stopped short, so its confidence can count it', async () => {
    const r = await readAnswer(
      scripted((_, ps) => [window(ps, ['Mirela Ostrowski'])]),
      'Who leads Falcon?',
      [],
      [falcon],
      true,
    );
    expect(r.features.stopped).toBe(true);
  });
});
