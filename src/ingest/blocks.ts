import type { Entry } from '../store/types.js';

/** The structural units a parser finds in a document, before chunking. */
/** `section_end` closes the headings of its level and deeper (the end of a list of terms). */
export type BlockKind = 'heading' | 'section_end' | 'paragraph' | 'list_item' | 'table' | 'code' | 'quote' | 'footer';

export interface Block {
  kind: BlockKind;
  text: string;
  /** Heading level (1 = title); for list items, the nesting depth. */
  level?: number;
  /** 1-based page for PDFs. */
  page?: number;
  /** Table header cells and body rows. */
  header?: string[];
  rows?: string[][];
  /** The entry the block belongs to: the term a term list, a bolded lead or a name line describes. */
  entry?: Entry;
  /** A heading's id in the page as it is hosted (a link to the section is `url#anchor`). */
  anchor?: string;
  /** A labelled field of its entry that the page gives its entries alike ("Blocks: topmost", "WARNING: …"). */
  field?: boolean;
}

export interface ParsedDocument {
  title: string | null;
  url: string | null;
  blocks: Block[];
  /** Where the document stands among its siblings (a wiki's page tree above it): the start of every chunk's heading path. */
  trail?: string[];
}

/** Collapses whitespace runs (incl. non-breaking spaces) to single spaces. */
export function cleanText(s: string): string {
  return (
    s
      // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what this strips
      .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/g, ' ')
      .replace(/[\s\u00a0]+/g, ' ')
      .trim()
  );
}
