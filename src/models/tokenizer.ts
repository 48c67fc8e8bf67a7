import fs from 'node:fs';
import path from 'node:path';
import { Tokenizer } from '@huggingface/tokenizers';
import { UserError } from '../errors.js';

/**
 * The model's own WordPiece tokenizer (a BERT's or an MPNet's), loaded from its tokenizer.json on disk (never from a hub).
 * @huggingface/tokenizers: Hugging Face's pure-JS port of `tokenizers`, no native code, reads
 * tokenizer.json as is. It has no truncation or offsets, so both are done here.
 */
export interface EncodedText {
  ids: number[];
  /** True when the text was longer than maxLength and was cut. */
  truncated: boolean;
}

/** The special tokens a model was trained with, by their tokenizer_config.json names. */
type SpecialTokens = Record<'cls_token' | 'sep_token' | 'pad_token' | 'mask_token' | 'unk_token', string>;

/** BERT's: what a tokenizer_config.json that names none means. */
const BERT_SPECIAL: SpecialTokens = {
  cls_token: '[CLS]',
  sep_token: '[SEP]',
  pad_token: '[PAD]',
  mask_token: '[MASK]',
  unk_token: '[UNK]',
};

/** The config's special tokens (an MPNet's are `<s>`, `</s>`, `<pad>`…), BERT's where it names none. */
function specialTokens(cfg: object): SpecialTokens {
  const named = cfg as Partial<Record<keyof SpecialTokens, unknown>>;
  const out = { ...BERT_SPECIAL };
  for (const k of Object.keys(out) as (keyof SpecialTokens)[]) {
    const v = named[k];
    // a token may be written as { content: "<mask>", … }
    const text = typeof v === 'string' ? v : (v as { content?: unknown } | undefined)?.content;
    if (typeof text === 'string') out[k] = text;
  }
  return out;
}

export class BertTokenizer {
  readonly clsId: number;
  readonly sepId: number;
  readonly padId: number;
  readonly maskId: number;
  readonly unkId: number;
  private readonly pieceCache = new Map<string, number[]>();

  private constructor(
    private readonly tok: Tokenizer,
    readonly dir: string,
    special: SpecialTokens,
  ) {
    const id = (t: string) => {
      const v = tok.token_to_id(t);
      if (v === undefined) throw new UserError(`${path.join(dir, 'tokenizer.json')}: no ${t} token; this is not a WordPiece tokenizer ragask can read`);
      return v;
    };
    this.clsId = id(special.cls_token);
    this.sepId = id(special.sep_token);
    this.padId = id(special.pad_token);
    this.maskId = id(special.mask_token);
    this.unkId = id(special.unk_token);
  }

  static load(dir: string): BertTokenizer {
    const jsonPath = path.join(dir, 'tokenizer.json');
    const cfgPath = path.join(dir, 'tokenizer_config.json');
    if (!fs.existsSync(jsonPath)) throw new UserError(`${jsonPath} is missing; run \`npm run models\` to fetch the model`);
    let json: object;
    let cfg: object = {};
    try {
      json = JSON.parse(fs.readFileSync(jsonPath, 'utf8')) as object;
      if (fs.existsSync(cfgPath)) cfg = JSON.parse(fs.readFileSync(cfgPath, 'utf8')) as object;
    } catch (e) {
      throw new UserError(`${jsonPath}: not valid JSON (${(e as Error).message}); run \`npm run models -- --force\` to fetch it again`);
    }
    return new BertTokenizer(new Tokenizer(json, cfg), dir, specialTokens(cfg));
  }

  /** Word pieces of `text` without [CLS]/[SEP]. */
  pieces(text: string): number[] {
    return this.tok.encode(text, { add_special_tokens: false }).ids;
  }

  /**
   * Word pieces of one whitespace-free word, memoised: BERT's pre-tokenizer splits on whitespace
   * and punctuation, so a word tokenized alone gives the same pieces as inside its sentence.
   */
  wordPieces(word: string): number[] {
    let ids = this.pieceCache.get(word);
    if (!ids) {
      ids = this.pieces(word);
      if (this.pieceCache.size > 200_000) this.pieceCache.clear();
      this.pieceCache.set(word, ids);
    }
    return ids;
  }

  /** [CLS] text [SEP], cut to maxLength pieces (keeping the final [SEP]). */
  encode(text: string, maxLength: number): EncodedText {
    const body = this.pieces(text);
    const room = Math.max(0, maxLength - 2);
    const truncated = body.length > room;
    return { ids: [this.clsId, ...(truncated ? body.slice(0, room) : body), this.sepId], truncated };
  }

  countTokens(text: string): number {
    return this.pieces(text).length;
  }

  decode(ids: number[]): string {
    return this.tok.decode(ids, { skip_special_tokens: true });
  }

  idToToken(id: number): string | undefined {
    return this.tok.id_to_token(id);
  }

  tokenToId(token: string): number | undefined {
    return this.tok.token_to_id(token);
  }

  get vocabSize(): number {
    return this.tok.get_vocab(true).size;
  }
}
