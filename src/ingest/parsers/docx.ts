/**
 * Word documents (.docx): mammoth turns the document into semantic HTML (Word's heading styles as
 * <h1>–<h6>, lists, tables, bold and links; no layout), which the HTML reader then reads as it
 * reads any page, so headings, lists and tables become the same blocks. The title comes from the
 * document's own properties (docProps/core.xml), read with jszip (mammoth's own zip library).
 * mammoth: the well-kept .docx-to-HTML converter of the JavaScript ecosystem, pure JS, BSD-2.
 */
import { lazyPackage } from '../../lazy-package.js';
import type { ParsedDocument } from '../blocks.js';
import { cleanText } from '../blocks.js';
import { parseHtml } from './html.js';

/** Every .docx is a zip file. */
const ZIP_MAGIC = [0x50, 0x4b, 0x03, 0x04];
/** An OLE compound file: a legacy .doc, or a .docx saved with a password (Office encrypts it into one). */
const OLE_MAGIC = [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1];

const jszip = lazyPackage<typeof import('jszip')>('jszip');
const mammoth = lazyPackage<typeof import('mammoth')>('mammoth');

const startsWith = (bytes: Uint8Array, magic: readonly number[]) => magic.every((b, i) => bytes[i] === b);

const escapeHtml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** The title in the document's properties (File → Properties → Title), if it has one. */
async function propertiesTitle(bytes: Uint8Array): Promise<string | null> {
  const zip = await jszip().loadAsync(bytes);
  const core = await zip.file('docProps/core.xml')?.async('string');
  const m = core ? /<dc:title>([\s\S]*?)<\/dc:title>/.exec(core) : null;
  if (!m) return null;
  const title = cleanText(
    m[1]!
      .replace(/&lt;/g, '<')
      .replace(/&gt;/g, '>')
      .replace(/&quot;/g, '"')
      .replace(/&apos;/g, "'")
      .replace(/&amp;/g, '&'),
  );
  return title || null;
}

export async function parseDocx(bytes: Uint8Array): Promise<ParsedDocument> {
  if (startsWith(bytes, OLE_MAGIC)) {
    throw new Error(
      'a password-protected document or a legacy .doc (an OLE container, not a .docx zip): save it as .docx without a password',
    );
  }
  if (!startsWith(bytes, ZIP_MAGIC)) throw new Error('not a .docx file (no zip header)');
  let html: string;
  let title: string | null;
  try {
    title = await propertiesTitle(bytes);
    html = (await mammoth().convertToHtml({ buffer: Buffer.from(bytes) })).value;
  } catch (e) {
    throw new Error(`corrupt or truncated .docx (${(e as Error).message.split('\n')[0]})`);
  }
  return parseHtml(
    `<html><head>${title ? `<title>${escapeHtml(title)}</title>` : ''}</head><body>${html}</body></html>`,
  );
}
