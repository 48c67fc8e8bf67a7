import { HTMLElement, NodeType } from 'node-html-parser';
import type { Entry } from '../../store/types.js';
import { fieldEntry, termEntry } from '../entries.js';
import { BOLD, CODE_INLINE, inlineText, tagOf } from './html-dom.js';

/**
 * The field a paragraph or list item describes when it leads with a bolded term set apart by a
 * colon or a dash (`<b>Retention:</b> 90 days`, `<strong>Leave</strong> — …`; Word's bold run, as
 * mammoth writes it), as Markdown's `**Term**:` is read.
 */
export function boldLead(el: HTMLElement): Entry | null {
  const kids = el.childNodes.filter((c) => c.nodeType !== NodeType.TEXT_NODE || c.text.trim());
  const [first, second] = kids;
  if (!(first instanceof HTMLElement)) return null;
  const named = isNameMarkup(first);
  if (!named && !BOLD.has(tagOf(first))) return null;
  const bold = inlineText(first);
  const after = second?.nodeType === NodeType.TEXT_NODE ? second.text : '';
  if (!/:$/.test(bold) && !/^\s*(:|[-\u2013\u2014]\s)/u.test(after)) return null;
  return named ? termEntry(bold) : fieldEntry(bold);
}

/** DocBook's markup of a name in running text (Exim's `<span class="docbook_option">`). */
const NAME_CLASS = /\b(?:docbook_)?(?:option|literal|varname|parameter|command)\b/;

/**
 * A name set in code or marked as one (`<code>timeout</code>: …`, Exim's log selectors
 * `<span class="docbook_option">all_parents</span>: …`): a lead as a bold term is.
 */
const isNameMarkup = (el: HTMLElement) =>
  CODE_INLINE.has(tagOf(el)) || (tagOf(el) === 'span' && NAME_CLASS.test(el.getAttribute('class') ?? ''));

/** A bold label led with this many times or more in a page is a field its terms share, not a term. */
const FIELD_REPEATS = 3;

/** The bold labels paragraphs of the page lead with FIELD_REPEATS times or more. */
export function repeatedLabels(body: HTMLElement): Set<string> {
  const counts = new Map<string, number>();
  for (const p of body.querySelectorAll('p')) {
    const term = boldLead(p)?.term;
    if (term) counts.set(term, (counts.get(term) ?? 0) + 1);
  }
  return new Set([...counts].filter(([, n]) => n >= FIELD_REPEATS).map(([term]) => term));
}
