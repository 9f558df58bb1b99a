/**
 * The one field of a JSON answer an HTTP check compares: a JSON pointer (RFC 6901, `/a/0/b`) or
 * a dotted path (`a.0.b`), nothing more: no wildcards, filters or expressions. Pure.
 */

/** The value at `path` in `json`, or `found: false` when some step is missing. */
export function valueAt(
  json: unknown,
  path: string,
): { found: true; value: unknown } | { found: false } {
  let node = json;
  for (const step of stepsOf(path)) {
    if (Array.isArray(node)) {
      if (!/^(0|[1-9]\d*)$/.test(step) || Number(step) >= node.length) return { found: false };
      node = node[Number(step)];
      continue;
    }
    if (typeof node !== 'object' || node === null || !Object.hasOwn(node, step))
      return { found: false };
    node = (node as Record<string, unknown>)[step];
  }
  return { found: true, value: node };
}

/** The steps of `path`: a pointer's unescaped tokens, or a dotted path's parts ('' = the root). */
export function stepsOf(path: string): string[] {
  if (path === '') return [];
  if (path.startsWith('/'))
    return path
      .slice(1)
      .split('/')
      .map((token) => token.replaceAll('~1', '/').replaceAll('~0', '~'));
  return path.split('.');
}
