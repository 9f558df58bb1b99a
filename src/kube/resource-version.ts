/**
 * A status PUT's answer is the whole object again (about 4 KB of JSON for a Pipeline, 34,000
 * of them in a 10,000-Pipeline wave), and all the writer learns from it is the new
 * resourceVersion: the status is the one it sent. Parsing every answer made objects that lived
 * across the write's awaits, reached the old space and set the heap's peak, so the answer's
 * text is scanned for `metadata.resourceVersion` alone, without building anything else.
 */

/**
 * The top-level `metadata.resourceVersion` string of a JSON object's text; undefined when the
 * text is not a JSON object, has no such string, or is malformed where the scan passes.
 */
export function resourceVersionOf(json: string): string | undefined {
  try {
    let found: string | undefined;
    eachMember(json, skipSpace(json, 0), (key, at) => {
      if (key !== 'metadata' || json[at] !== '{') return skipValue(json, at);
      return eachMember(json, at, (inner, valueAt) => {
        if (inner === 'resourceVersion' && json[valueAt] === '"') {
          const end = skipString(json, valueAt);
          found = JSON.parse(json.slice(valueAt, end)) as string;
          return end;
        }
        return skipValue(json, valueAt);
      });
    });
    return found;
  } catch {
    return undefined;
  }
}

class Malformed extends Error {}

/**
 * Walks the members of the object starting at `at` (its `{`), calling `visit` with each key and
 * the index of its value; `visit` returns the index just past the value. Returns the index past
 * the closing `}`.
 */
function eachMember(
  json: string,
  at: number,
  visit: (key: string, valueAt: number) => number,
): number {
  if (json[at] !== '{') throw new Malformed();
  let i = skipSpace(json, at + 1);
  if (json[i] === '}') return i + 1;
  for (;;) {
    if (json[i] !== '"') throw new Malformed();
    const keyEnd = skipString(json, i);
    const raw = json.slice(i + 1, keyEnd - 1);
    const key = raw.includes('\\') ? (JSON.parse(json.slice(i, keyEnd)) as string) : raw;
    i = skipSpace(json, keyEnd);
    if (json[i] !== ':') throw new Malformed();
    i = skipSpace(json, visit(key, skipSpace(json, i + 1)));
    if (json[i] === '}') return i + 1;
    if (json[i] !== ',') throw new Malformed();
    i = skipSpace(json, i + 1);
  }
}

/** The index past the value starting at `at`. Nesting is followed; strings are skipped whole. */
function skipValue(json: string, at: number): number {
  const first = json[at];
  if (first === '"') return skipString(json, at);
  if (first !== '{' && first !== '[') {
    let i = at;
    while (i < json.length && !',}] \t\r\n'.includes(json.charAt(i))) i++;
    if (i === at) throw new Malformed();
    return i;
  }
  let depth = 0;
  for (let i = at; i < json.length; i++) {
    const c = json[i];
    if (c === '"') i = skipString(json, i) - 1;
    else if (c === '{' || c === '[') depth++;
    else if (c === '}' || c === ']') {
      depth--;
      if (depth === 0) return i + 1;
    }
  }
  throw new Malformed();
}

/** The index past the string whose opening quote is at `at`. */
function skipString(json: string, at: number): number {
  for (let i = at + 1; i < json.length; i++) {
    const c = json[i];
    if (c === '\\') i++;
    else if (c === '"') return i + 1;
  }
  throw new Malformed();
}

function skipSpace(json: string, at: number): number {
  let i = at;
  while (i < json.length && ' \t\r\n'.includes(json.charAt(i))) i++;
  return i;
}
