/**
 * Text that goes into status, events and logs: bounded and free of control characters, so an
 * object's or a caller's odd strings can neither bloat a Pipeline nor forge a log line.
 */

// eslint-disable-next-line no-control-regex -- control characters are what is removed
const CONTROL_OR_SPACE = /[\u0000-\u001f\u007f\s]+/g;

/** Cuts `text` to `max` characters, marking the cut with `…`. */
export function truncate(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/**
 * A string made safe for a message: runs of control characters and spaces become one space,
 * the ends are trimmed, and it is capped at `max`. Anything but a string becomes ''.
 */
export function clip(text: unknown, max: number): string {
  if (typeof text !== 'string') return '';
  return truncate(text.replace(CONTROL_OR_SPACE, ' ').trim(), max);
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
