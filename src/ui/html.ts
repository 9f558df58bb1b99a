/**
 * HTML built from template literals with every interpolated value escaped: the only way text
 * from a Pipeline (a revision, a reason, a principal) reaches a page is through `html`, so a
 * `<script>` in any of them renders as inert text, and a bidirectional override as U+FFFD. Pure.
 */

import { neutralize } from '../text/text.js';

/** Markup that is safe to insert as is: made only by `html` (or `trusted` for fixed markup). */
export class SafeHtml {
  constructor(readonly text: string) {}

  toString(): string {
    return this.text;
  }
}

/** What a template may interpolate: text (escaped), markup, numbers, nothing, or lists of them. */
export type HtmlValue =
  SafeHtml | string | number | boolean | null | undefined | readonly HtmlValue[];

const ESCAPES: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/**
 * `text` with the five characters that matter in HTML text and quoted attributes escaped, and
 * every control or invisible formatting character (a bidirectional override would reorder the
 * page's text) replaced by U+FFFD, as in the terminal (src/text/text.ts).
 */
export function escapeHtml(text: string): string {
  return neutralize(text).replace(/[&<>"']/g, (c) => ESCAPES[c] ?? c);
}

function render(value: HtmlValue): string {
  if (value instanceof SafeHtml) return value.text;
  if (typeof value === 'string') return escapeHtml(value);
  if (typeof value === 'number') return String(value);
  if (Array.isArray(value)) return (value as readonly HtmlValue[]).map(render).join('');
  // false, true, null and undefined render as nothing, so `cond && html\`...\`` reads well.
  return '';
}

/**
 * A template's own text with each line break and the indentation around it made one space
 * (what HTML shows of them anyway, and we use no <pre>): the source stays formatted, the page
 * stays small. Interpolated values are not touched. Kept per template, which never changes.
 */
const compacted = new WeakMap<TemplateStringsArray, readonly string[]>();

function compact(strings: TemplateStringsArray): readonly string[] {
  let parts = compacted.get(strings);
  if (parts === undefined) {
    parts = strings.map((part) => part.replace(/[ \t]*\n\s*/g, ' '));
    compacted.set(strings, parts);
  }
  return parts;
}

/** The tag for templates: `html\`<td>${revision}</td>\`` escapes `revision`. */
export function html(strings: TemplateStringsArray, ...values: HtmlValue[]): SafeHtml {
  const parts = compact(strings);
  let out = parts[0] ?? '';
  values.forEach((value, i) => {
    out += render(value) + (parts[i + 1] ?? '');
  });
  return new SafeHtml(out);
}

/** Fixed markup of our own (never built from input), e.g. an SVG path computed from numbers. */
export function trusted(markup: string): SafeHtml {
  return new SafeHtml(markup);
}

/** Items joined into one piece of markup. */
export function join(items: readonly HtmlValue[], separator: HtmlValue = ''): SafeHtml {
  return new SafeHtml(items.map(render).join(render(separator)));
}
