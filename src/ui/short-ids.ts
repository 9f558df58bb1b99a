/**
 * Long ids as the view's tables show them: a digest, a Git or OCI revision
 * (`main@sha1:<40 hex>`, `sha256:<64 hex>`) or a statement id shortened to a few characters
 * that still tell them apart, the whole value in the hover title and on a copy button
 * (web/copy.js shows the button once it runs: without the script it stays hidden). Short ids
 * are shown as they are, without a button. Pure.
 */
import { clip } from '../text/text.js';
import { html, type SafeHtml } from './html.js';

/** Ids up to this many characters are shown whole. */
export const SHORT_ID_MAX = 16;
/** How many hex digits of a long hash are kept (as `git log --oneline` shows them). */
const HASH_DIGITS = 7;
/** Longest value kept whole in a title or on a button (the status bounds ids below this). */
const FULL_MAX = 256;

/** A prefix ending in `:` or `@` (`sha256:`, `main@sha1:`), then a long run of hex digits. */
const HASHED = /^(.{0,32}?[:@])?([0-9a-f]{12,})$/i;

/**
 * `value` shortened: a hash to its prefix and first 7 digits (`sha256:3f2a1b9…`), anything
 * else longer than 16 characters to its first 8 and last 4 (`0f8fad5b…950e`).
 */
export function shortId(value: string): string {
  if (value.length <= SHORT_ID_MAX) return value;
  const hashed = HASHED.exec(value);
  const digits = hashed?.[2];
  if (digits !== undefined) return `${hashed?.[1] ?? ''}${digits.slice(0, HASH_DIGITS)}…`;
  return `${value.slice(0, 8)}…${value.slice(-4)}`;
}

/**
 * An id for a table or the picture (`what` names it for the button: `revision`, `statement
 * id`): whole when short; else shortened, breakable after `@` and `:`, with the whole value in
 * its title and, unless `copy` is false, a copy button.
 */
export function idHtml(value: string | undefined, what: string, copy = true): SafeHtml {
  const full = clip(value, FULL_MAX);
  if (full === '') return html`—`;
  const short = shortId(full);
  if (short === full) return html`<span class="id">${full}</span>`;
  // Each part unbroken (a line may break after `…`), a break allowed between them.
  const parts = short
    .split(/(?<=[:@])/)
    .map((p, i) => html`${i === 0 ? '' : html`<wbr />`}<span>${p}</span>`);
  const shown = html`<span class="id" title="${full}">${parts}</span>`;
  if (!copy) return shown;
  return html`${shown}<button
      type="button"
      class="copy"
      data-copy="${full}"
      title="Copy the whole ${what}"
    >
      copy
    </button>`;
}
