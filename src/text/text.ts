/**
 * Text that goes into status, events, logs, the terminal and the web view: bounded and free of
 * control and invisible formatting characters, so an object's or a caller's odd strings can
 * neither bloat a Pipeline, forge a log line, drive a terminal (ESC, CSI) nor reorder what a
 * reader sees (bidirectional overrides: "Trojan Source").
 */

// eslint-disable-next-line no-control-regex -- control characters are what is removed
const CONTROL_OR_SPACE = /[\u0000-\u001f\u007f\s]+/g;

/**
 * A character no text of a person's may hold, nor any text shown: controls (C0, DEL, C1 such as
 * U+009B, a terminal's CSI), line and paragraph separators, lone surrogates, and invisible format
 * characters (Unicode Cf): bidirectional marks, embeddings, overrides and isolates (U+200E,
 * U+202A-U+202E, U+2066-U+2069), zero-width space, soft hyphen, tag characters. Zero-width
 * non-joiner and joiner (U+200C, U+200D) are not: scripts and emoji need them, and they reorder
 * nothing.
 */
const UNSAFE_CHARACTER = /(?![\u200c\u200d])[\p{Cc}\p{Cf}\p{Cs}\p{Zl}\p{Zp}]/u;
const UNSAFE_CHARACTERS = new RegExp(UNSAFE_CHARACTER.source, 'gu');
/** The whitespace JSON text is laid out with, outside its strings. */
const JSON_LAYOUT: ReadonlySet<string> = new Set(['\t', '\n', '\r']);
/** The replacement character: shows where something was, without its effect. */
const REPLACEMENT = '\ufffd';

/** Cuts `text` to `max` characters, marking the cut with `…` (never inside a surrogate pair). */
export function truncate(text: string, max: number): string {
  if (text.length <= max) return text;
  const high = text.charCodeAt(max - 2);
  const cut = high >= 0xd800 && high <= 0xdbff ? max - 2 : max - 1;
  return `${text.slice(0, cut)}…`;
}

/**
 * A string made safe for a message: runs of control characters and spaces become one space, any
 * other unsafe character U+FFFD (neutralize), trimmed and capped at `max`; '' for a non-string.
 */
export function clip(text: unknown, max: number): string {
  if (typeof text !== 'string') return '';
  return truncate(neutralize(text.replace(CONTROL_OR_SPACE, ' ')).trim(), max);
}

/**
 * `text` with every control or invisible formatting character (UNSAFE_CHARACTER) replaced by
 * U+FFFD, one for one: a line shown as it is, but for what could drive a terminal or reorder it.
 */
export function neutralize(text: string): string {
  return UNSAFE_CHARACTER.test(text) ? text.replace(UNSAFE_CHARACTERS, REPLACEMENT) : text;
}

/** What text a person writes must keep to, in words, after the field's name. */
export const PLAIN_TEXT_RULE = 'must not contain control or invisible formatting characters';

/**
 * The first control or invisible formatting character of `text` as `U+202E`, or undefined: the
 * one check of text people write (halt reasons, approval comments), at every door.
 */
export function unsafeCharacterOf(text: string): string | undefined {
  const found = UNSAFE_CHARACTER.exec(text)?.[0];
  if (found === undefined) return undefined;
  const code = found.codePointAt(0) ?? 0;
  return `U+${code.toString(16).toUpperCase().padStart(4, '0')}`;
}

/**
 * JSON.stringify's output with every control or invisible formatting character in its strings
 * written as a `\uXXXX` escape: the same JSON value, printable as it is.
 */
export function escapeUnsafeJson(json: string): string {
  // JSON.stringify escapes C0 inside strings, so a tab, line feed or carriage return left in its
  // output is layout between values, and stays.
  return json.replace(UNSAFE_CHARACTERS, (found) =>
    JSON_LAYOUT.has(found)
      ? found
      : Array.from({ length: found.length }, (_, i) => {
          const unit = found.charCodeAt(i).toString(16).padStart(4, '0');
          return `\\u${unit}`;
        }).join(''),
  );
}

/** clip() for values shown in a sentence: '(none)' stands in for a missing or empty value. */
export function display(text: string | undefined, max = 128): string {
  const clean = clip(text, max);
  return clean === '' ? '(none)' : clean;
}

/**
 * The same text as one flat string. A string built by `+` or a template literal is a tree of
 * its parts (a "cons string", 32 bytes per join plus every part), and stays one while it is
 * only kept: a message or an id held per target for the life of the process costs about 80
 * bytes more that way. `normalize()` hands back V8's flattened copy for text already in NFC
 * (all Latin-1 text is); other text is returned as it is, so the content never changes.
 */
export function flatten(text: string): string {
  const flat = text.normalize();
  return flat === text ? flat : text;
}

/** Distinct texts a TextPool holds before it starts afresh. */
const TEXT_POOL_SIZE = 4096;

/**
 * One flat instance per distinct text among texts kept for the life of the process (target
 * messages, decision texts). Objects at the same revision often say the same thing (every
 * Kustomization of one repository: "Applied revision: main@sha1:…"; every Pipeline at one
 * chart version: "dev is healthy at 1.4.2 on 2 targets"), and each copy kept per target costs
 * its length again. Bounded: past its size it starts afresh, so no text outlives its holders
 * for long.
 */
export class TextPool {
  private pool = new Map<string, string>();

  constructor(private readonly capacity = TEXT_POOL_SIZE) {}

  /** Distinct texts held now. */
  get size(): number {
    return this.pool.size;
  }

  /** The pooled, flat instance of `text`: equal to it, shared with every equal text pooled. */
  one(text: string): string {
    const known = this.pool.get(text);
    if (known !== undefined) return known;
    const flat = flatten(text);
    if (this.pool.size >= this.capacity) this.pool = new Map();
    this.pool.set(flat, flat);
    return flat;
  }
}
