import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { BertTokenizer } from '../../src/models/tokenizer.js';
import { ROOT } from '../helpers.js';

const tok = BertTokenizer.load(path.join(ROOT, 'models', 'all-MiniLM-L6-v2'));
const golden = JSON.parse(fs.readFileSync(path.join(ROOT, 'test', 'fixtures', 'tokenizer-golden.json'), 'utf8')) as { text: string; ids: number[] }[];

describe('BertTokenizer (the model\'s own tokenizer.json)', () => {
  it.each(golden.map((g) => [g.text, g.ids] as const))('matches the reference Rust tokenizer on %j', (text, ids) => {
    expect(tok.encode(text, 512).ids).toEqual(ids);
  });

  it('round-trips text through ids (lower-cased, accents stripped, as the uncased model sees it)', () => {
    const text = 'The Vantor TS-40 reports 0.01 degree resolution';
    const decoded = tok.decode(tok.encode(text, 512).ids);
    expect(decoded.replace(/\s+/g, '')).toBe(text.toLowerCase().replace(/\s+/g, ''));
  });

  it('gives a word the same pieces alone as inside its sentence (the windowing relies on it)', () => {
    const sentence = 'Recalibrate the Corvid FC-3 flight-computer every 12 months, please.';
    const perWord = sentence.split(/\s+/).flatMap((w) => tok.wordPieces(w));
    expect(perWord).toEqual(tok.pieces(sentence));
  });

  it('wraps in [CLS] … [SEP] and truncates to maxLength keeping the final [SEP]', () => {
    const long = tok.encode('word '.repeat(600), 64);
    expect(long.ids).toHaveLength(64);
    expect(long.truncated).toBe(true);
    expect(long.ids[0]).toBe(tok.clsId);
    expect(long.ids.at(-1)).toBe(tok.sepId);
    expect(tok.encode('short text', 64).truncated).toBe(false);
  });

  it('names the command that fetches a missing tokenizer', () => {
    expect(() => BertTokenizer.load('/nonexistent/model')).toThrow(/npm run models/);
  });
});
