import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { BertTokenizer } from '../../src/models/tokenizer.js';
import { ROOT, tempDir } from '../helpers.js';

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

describe("a WordPiece tokenizer with another model's special tokens (an MPNet's)", () => {
  /** A tiny WordPiece vocabulary whose special tokens are MPNet's, named in its tokenizer_config.json. */
  function mpnetLike(): string {
    const dir = tempDir();
    const vocab = ['<s>', '<pad>', '</s>', '[UNK]', '<mask>', 'drone', 'lost', 'telemetry'];
    const special = (content: string, id: number) => ({
      id,
      content,
      special: true,
      single_word: false,
      lstrip: false,
      rstrip: false,
      normalized: false,
    });
    fs.writeFileSync(
      path.join(dir, 'tokenizer.json'),
      JSON.stringify({
        version: '1.0',
        added_tokens: vocab.slice(0, 5).map((t, i) => special(t, i)),
        normalizer: { type: 'BertNormalizer', clean_text: true, handle_chinese_chars: true, strip_accents: null, lowercase: true },
        pre_tokenizer: { type: 'BertPreTokenizer' },
        post_processor: {
          type: 'RobertaProcessing',
          sep: ['</s>', 2],
          cls: ['<s>', 0],
          trim_offsets: true,
          add_prefix_space: false,
        },
        decoder: { type: 'WordPiece', prefix: '##', cleanup: true },
        model: {
          type: 'WordPiece',
          unk_token: '[UNK]',
          continuing_subword_prefix: '##',
          max_input_chars_per_word: 100,
          vocab: Object.fromEntries(vocab.map((t, i) => [t, i])),
        },
      }),
    );
    fs.writeFileSync(
      path.join(dir, 'tokenizer_config.json'),
      JSON.stringify({
        cls_token: '<s>',
        sep_token: '</s>',
        pad_token: '<pad>',
        unk_token: '[UNK]',
        mask_token: { content: '<mask>', lstrip: true },
      }),
    );
    return dir;
  }

  it('wraps in the special tokens its config names, and pads with its own', () => {
    const mp = BertTokenizer.load(mpnetLike());
    expect([mp.clsId, mp.padId, mp.sepId, mp.unkId, mp.maskId]).toEqual([0, 1, 2, 3, 4]);
    expect(mp.encode('Drone lost telemetry', 16).ids).toEqual([0, 5, 6, 7, 2]);
  });

  it("names the file when a token its config names is not in the vocabulary", () => {
    const dir = mpnetLike();
    fs.writeFileSync(path.join(dir, 'tokenizer_config.json'), JSON.stringify({ cls_token: '<cls>' }));
    expect(() => BertTokenizer.load(dir)).toThrow(`${path.join(dir, 'tokenizer.json')}: no <cls> token`);
  });
});
