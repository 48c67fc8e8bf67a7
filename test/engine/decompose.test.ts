import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Core } from '../../src/core.js';
import { Decomposer, plausibleEntity } from '../../src/engine/decompose.js';
import { termSet } from '../../src/engine/text.js';
import { MaskedLM } from '../../src/models/masked-lm.js';
import { analyze } from '../../src/models/nlp.js';
import { ROOT, sampleCore } from '../helpers.js';
import { extendQuery, findSlot } from '../../src/engine/bridge-query.js';
import { titleNames } from '../../src/engine/bridge-links.js';

describe('the slot of a question', () => {
  const slotText = (q: string, known: string) => {
    const s = findSlot(q, analyze(q), termSet(known));
    return s ? q.slice(s.start, s.end) : null;
  };

  it('is the noun phrase a relative clause or participle ties to what the evidence covers', () => {
    expect(
      slotText(
        'Which calibration offset applies at −20 °C to the temperature sensor used in Project Falcon?',
        'Project Falcon uses a sensor',
      ),
    ).toBe('the temperature sensor used in Project Falcon');
    expect(
      slotText('Who leads the project whose drone lost telemetry on 2024-03-14?', 'INC-2024-031 Date: 2024-03-14'),
    ).toBe('the project whose drone lost telemetry on 2024-03-14');
  });

  it('follows a possessive to the noun it owns', () => {
    expect(
      slotText(
        "In which city is the manufacturer of Project Osprey's particulate sensor based?",
        'Project Osprey towers',
      ),
    ).toBe("Project Osprey's particulate sensor");
  });

  it("is absent when the evidence covers none of the question's names", () => {
    expect(
      slotText(
        'Which calibration offset applies to the temperature sensor used in Project Falcon?',
        'nothing relevant here',
      ),
    ).toBeNull();
  });

  it('fills the slot with the entity: a question that keeps its other words, the entity once, never inside a word', () => {
    const q = 'What is the range of the sensor used in Project Falcon?';
    expect(extendQuery(q, 'Vantor TS-40', { start: 21, end: 54 }).query).toBe(
      'What is the range of Vantor TS-40 (the sensor used in Project Falcon)?',
    );
    const j = 'the film in which Jung Joon-young debuted';
    expect(extendQuery(j, 'X', { start: 0, end: j.indexOf('-young') }).query).toBe(
      'X (the film in which Jung Joon-young) debuted',
    );
  });

  it('sets the entity after the question where there is no slot, once, as a question', () => {
    expect(extendQuery('Who directed it?', 'Maximum Overdrive', null)).toEqual({
      query: 'Who directed it — Maximum Overdrive?',
      formedBy: 'appended',
    });
    // a query that already names the entity is not extended again: no "(Project Falcon) (Falcon)"
    expect(extendQuery('Who leads Project Falcon?', 'Project Falcon', null).query).toBe('Who leads Project Falcon?');
  });
});

describe('bridge candidates', () => {
  let core: Core;
  let cleanup: () => Promise<void>;
  let mlm: MaskedLM;
  beforeAll(async () => {
    ({ core, cleanup } = await sampleCore());
    mlm = await MaskedLM.load({ modelsDir: path.join(ROOT, 'models'), model: 'test-tiny-mlm', threads: 1 });
  });
  afterAll(async () => {
    await mlm.release();
    await cleanup();
  });

  async function candidatesFor(question: string, withMlm: boolean) {
    const r = await core.retriever.retrieve(question, { k: 5 });
    const d = new Decomposer({
      store: core.store,
      mlm: withMlm ? mlm : null,
      windowsOfDoc: async (id) => await core.retriever.windowsOfDoc(id),
      windowsOfChunks: async (ids) => await core.retriever.windowVectors(ids),
    });
    return d.candidates({
      question,
      questionAnalysis: analyze(question),
      evidence: r.candidates,
      knownText: r.candidates
        .slice(0, 3)
        .map((c) => `${c.chunk.doc.title} ${c.chunk.text}`)
        .join(' '),
      knownDocIds: new Set(r.candidates.slice(0, 3).map((c) => c.chunk.docId)),
      usedEntities: new Set(),
      currentQuery: question,
      queryVector: r.queryVector,
    });
  }

  it('ranks the entity that links to an unseen document first, and forms its next query', async () => {
    const c = await candidatesFor('Who leads the project whose drone lost telemetry on 2024-03-14?', false);
    expect(c[0]!.entity).toBe('Project Falcon');
    expect(c[0]!.linksTo).toBe('Project Falcon');
    // the mention "Falcon" resolved to the document titled "Project Falcon"
    expect(c[0]!.features.link).toBeGreaterThanOrEqual(0.5);
    // the slot "the project whose drone lost telemetry on 2024-03-14" is what Project Falcon stands for
    expect(c[0]!.query).toBe('Who leads Project Falcon (the project whose drone lost telemetry on 2024-03-14)?');
    for (let i = 1; i < c.length; i++) expect(c[i - 1]!.score).toBeGreaterThanOrEqual(c[i]!.score);
    expect(c.every((x) => x.confidence > 0 && x.confidence < 1)).toBe(true);
  });

  it('never offers a stopword, a bare number or a date as a bridge', async () => {
    const c = await candidatesFor(
      'Which firmware version fixed the bug behind the Falcon telemetry dropout in March 2024?',
      false,
    );
    for (const x of c) {
      expect(x.entity).toMatch(/\p{L}/u);
      expect(x.entity.toLowerCase()).not.toMatch(/^(the|of|and|in|on|march( 2024)?|2024)$/);
    }
  });

  it("proposes names only: an entity, an identifier or a document's title, never a bare noun phrase of the evidence", async () => {
    const question = 'Which calibration offset applies at −20 °C to the temperature sensor used in Project Falcon?';
    const c = await candidatesFor(question, false);
    expect(c.length).toBeGreaterThan(0);
    const r = await core.retriever.retrieve(question, { k: 5 });
    const names = new Set(r.candidates.slice(0, 3).flatMap((x) => [...x.chunk.entities, x.chunk.doc.title]));
    for (const x of c) {
      // a phrase that is no entity of its chunk is kept only as a title or heading it links to
      if (x.origin === 'evidence' && !names.has(x.entity)) expect(x.features.link).toBeGreaterThanOrEqual(0.5);
    }
  });

  it('never proposes what the query or an earlier bridge already names ("Falcon" after "Project Falcon")', async () => {
    const question = 'Who leads the project whose drone lost telemetry on 2024-03-14?';
    const r = await core.retriever.retrieve(question, { k: 5 });
    const d = new Decomposer({
      store: core.store,
      windowsOfDoc: async (id) => await core.retriever.windowsOfDoc(id),
      windowsOfChunks: async (ids) => await core.retriever.windowVectors(ids),
    });
    const c = await d.candidates({
      question,
      questionAnalysis: analyze(question),
      evidence: r.candidates,
      knownText: '',
      knownDocIds: new Set(),
      usedEntities: new Set(['project falcon']),
      currentQuery: 'Who leads Project Falcon?',
      queryVector: r.queryVector,
    });
    for (const x of c) expect(['falcon', 'project falcon']).not.toContain(x.entity.toLowerCase());
  });

  it('marks a name whose own page the chain already read, when it leads on only to a page that mentions it', async () => {
    const question = 'Who leads the project whose drone lost telemetry on 2024-03-14?';
    const r = await core.retriever.retrieve(question, { k: 5 });
    const falconDoc = (await core.retriever.retrieve('Project Falcon survey drone', { k: 5 })).candidates.find(
      (c) => c.chunk.doc.title === 'Project Falcon',
    )!.chunk.docId;
    const d = new Decomposer({
      store: core.store,
      windowsOfDoc: async (id) => await core.retriever.windowsOfDoc(id),
      windowsOfChunks: async (ids) => await core.retriever.windowVectors(ids),
    });
    const input = (known: number[]) => ({
      question,
      questionAnalysis: analyze(question),
      evidence: r.candidates,
      knownText: '',
      knownDocIds: new Set(known),
      usedEntities: new Set<string>(),
      currentQuery: question,
      queryVector: r.queryVector,
    });
    const falconOf = async (known: number[]) =>
      (await d.candidates(input(known))).find((c) => /falcon/i.test(c.entity) && !/field notes/i.test(c.entity));
    // not yet read: "Project Falcon" leads to its own page
    const unread = await falconOf([]);
    expect(unread!.ownPageHeld).toBe(false);
    expect(unread!.linkVia).toBe('title');
    // read: it can only lead to another page that mentions it
    const read = await falconOf([falconDoc]);
    expect(read).toBeDefined();
    expect(read!.linkDocId).not.toBe(falconDoc);
    expect(read!.ownPageHeld).toBe(true);
  });

  it('adds fill-mask plausibility in the slot when a masked LM is configured', async () => {
    const without = await candidatesFor(
      'Which calibration offset applies at −20 °C to the temperature sensor used in Project Falcon?',
      false,
    );
    const withMlm = await candidatesFor(
      'Which calibration offset applies at −20 °C to the temperature sensor used in Project Falcon?',
      true,
    );
    expect(without.every((x) => x.features.mlm === null)).toBe(true);
    expect(withMlm.length).toBeGreaterThan(0);
    expect(withMlm.every((x) => typeof x.features.mlm === 'number' && Number.isFinite(x.features.mlm))).toBe(true);
  });
});

describe("the names a document's title gives it", () => {
  it('are the whole title and its lead before a description, a site suffix or a section number', () => {
    expect(titleNames('apache2ctl - Apache HTTP Server Control Interface - Apache HTTP Server Version 2.4')).toContain(
      'apache2ctl',
    );
    expect(titleNames('socket(7)')).toEqual(['socket']);
    expect(titleNames('INC-2024-031: Telemetry dropout on Project Falcon')).toContain('inc-2024-031');
    expect(titleNames('Brooklyn Dodgers (NFL)')).toEqual(['brooklyn dodgers']);
    expect(titleNames('Pizza in China')).toEqual(['pizza in china']);
  });
});

describe('what may be a bridge', () => {
  it('never a heading number, a section number, a document part or a bare ordinal; a name with a year still is', () => {
    for (const e of ['20.4. Resource Consumption', '27.4.1', '3.2 Installing', 'Section', 'the Table', 'See also'])
      expect(plausibleEntity(e)).toBe(false);
    for (const e of ['60th', '2nd', '21st', '3rd']) expect(plausibleEntity(e)).toBe(false);
    for (const e of ['1960 Summer Olympics', 'Vantor TS-40', 'Project Falcon', 'mod_ssl', '60th Emmy Awards'])
      expect(plausibleEntity(e)).toBe(true);
  });
});
