import type { Entry } from '../../store/types.js';
import { cleanText, type Block } from '../blocks.js';

/**
 * Gathers the HTML reader's blocks: the text of the paragraph being read, the entry (a term and its
 * description) every block belongs to, and the term a description opens with.
 */
export class BlockWriter {
  readonly blocks: Block[] = [];
  private buffer = '';
  private kind: 'paragraph' | 'quote' | 'list_item' = 'paragraph';
  private level: number | undefined;
  private pendingLead: string | null = null;
  private field = false;
  /** A term set on a line of its own over the `<pre>` that describes it, until the next heading; `described` once that `<pre>` is read. */
  preTerm: { term: string; described: boolean } | null = null;
  /** The entry (a term list's current term) every block gathered now belongs to. */
  entry: Entry | null = null;
  /** Bold labels the page leads descriptions with FIELD_REPEATS times or more (see repeatedLabels). */
  fieldLabels: ReadonlySet<string> = new Set();

  private add(b: Block): void {
    this.blocks.push(this.entry && b.kind !== 'section_end' ? { ...b, entry: this.entry } : b);
  }

  /** Ends the paragraph being gathered, if it has any text. */
  flush(): void {
    let text = cleanText(this.buffer.replace(/\u00b6/g, ' '));
    if (text && this.pendingLead) {
      const term = this.pendingLead.replace(/:$/, '');
      if (!text.startsWith(term)) text = `${term}: ${text}`;
      this.pendingLead = null;
    }
    if (text)
      this.add({
        kind: this.kind,
        text,
        ...(this.level === undefined ? {} : { level: this.level }),
        ...(this.field ? { field: true } : {}),
      });
    this.buffer = '';
    this.field = false;
    this.kind = 'paragraph';
    this.level = undefined;
  }

  /** Starts gathering a paragraph of this kind (what was gathered before is ended). */
  begin(kind: 'paragraph' | 'quote' | 'list_item', level?: number): void {
    this.flush();
    this.kind = kind;
    this.level = level;
  }

  text(s: string): void {
    this.buffer += s;
  }

  /** The paragraph being gathered is a field of the entry (Block.field). */
  markField(): void {
    this.field = true;
  }

  /** The next paragraph gathered (the description of a term) opens with this term. */
  lead(term: string): void {
    this.pendingLead = term;
  }

  push(b: Block): void {
    this.flush();
    if (b.kind === 'heading' || b.kind === 'section_end') this.pendingLead = null;
    this.add(b);
  }
}
