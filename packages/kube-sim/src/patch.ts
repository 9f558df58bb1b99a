/**
 * PATCH bodies: JSON merge patch (RFC 7386), JSON patch (RFC 6902) and a strategic-merge
 * approximation (merge patch plus the `$patch: delete|replace` directives; lists are replaced,
 * which matches strategic merge for every list the built-ins we serve carry).
 */
import { badRequest, SimError, unsupportedMediaType, failure } from './status-errors.js';

/** The patch content types the simulator distinguishes. */
export type PatchKind = 'merge' | 'json' | 'strategic' | 'apply';

/** Maps a Content-Type to a patch kind; throws 415 for anything else. */
export function patchKindOf(contentType: string): PatchKind {
  const base = (contentType.split(';')[0] ?? '').trim().toLowerCase();
  switch (base) {
    case 'application/merge-patch+json':
      return 'merge';
    case 'application/json-patch+json':
      return 'json';
    case 'application/strategic-merge-patch+json':
      return 'strategic';
    case 'application/apply-patch+yaml':
    case 'application/apply-patch+cbor':
      return 'apply';
    default:
      throw unsupportedMediaType(base === '' ? 'an empty content type' : base);
  }
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** RFC 7386: objects merge recursively, null deletes, everything else replaces. */
export function mergePatch(target: unknown, patch: unknown, strategic = false): unknown {
  if (!isRecord(patch)) return structuredClone(patch);
  if (strategic && patch.$patch === 'replace') {
    const rest: Record<string, unknown> = { ...patch };
    delete rest.$patch;
    return structuredClone(rest);
  }
  if (strategic && patch.$patch === 'delete') return undefined;
  const out: Record<string, unknown> = isRecord(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (strategic && key.startsWith('$')) continue;
    if (value === null) {
      Reflect.deleteProperty(out, key);
      continue;
    }
    const merged = mergePatch(out[key], value, strategic);
    if (merged === undefined) Reflect.deleteProperty(out, key);
    else out[key] = merged;
  }
  return out;
}

interface JsonPatchOp {
  op: string;
  path: string;
  from?: string;
  value?: unknown;
}

function parsePointer(pointer: string): string[] {
  if (pointer === '') return [];
  if (!pointer.startsWith('/')) throw badRequest(`invalid JSON pointer: ${pointer}`);
  return pointer
    .slice(1)
    .split('/')
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
}

function unprocessable(message: string): SimError {
  return new SimError(failure(422, 'Invalid', message));
}

function parentOf(doc: unknown, segments: string[]): { parent: unknown; key: string } {
  let node = doc;
  for (const s of segments.slice(0, -1)) {
    if (Array.isArray(node)) node = node[Number(s)];
    else if (isRecord(node)) node = node[s];
    else node = undefined;
    if (node === undefined)
      throw unprocessable(`jsonpatch: path /${segments.join('/')} does not exist`);
  }
  return { parent: node, key: segments[segments.length - 1] ?? '' };
}

function getAt(doc: unknown, pointer: string): unknown {
  let node = doc;
  for (const s of parsePointer(pointer)) {
    if (Array.isArray(node)) node = node[Number(s)];
    else if (isRecord(node)) node = node[s];
    else return undefined;
  }
  return node;
}

function removeAt(doc: unknown, pointer: string): unknown {
  const { parent, key } = parentOf(doc, parsePointer(pointer));
  if (Array.isArray(parent)) {
    const i = Number(key);
    if (!Number.isInteger(i) || i < 0 || i >= parent.length)
      throw unprocessable(`jsonpatch remove: index out of range: ${pointer}`);
    return parent.splice(i, 1)[0];
  }
  if (!isRecord(parent) || !(key in parent))
    throw unprocessable(
      `jsonpatch remove operation does not apply: doc is missing key: ${pointer}`,
    );
  const old = parent[key];
  Reflect.deleteProperty(parent, key);
  return old;
}

function addAt(doc: unknown, pointer: string, value: unknown, replace: boolean): unknown {
  const segments = parsePointer(pointer);
  if (segments.length === 0) return structuredClone(value);
  const { parent, key } = parentOf(doc, segments);
  if (Array.isArray(parent)) {
    const i = key === '-' ? parent.length : Number(key);
    if (!Number.isInteger(i) || i < 0 || i > parent.length)
      throw unprocessable(`jsonpatch: index out of range: ${pointer}`);
    if (replace) parent[i] = structuredClone(value);
    else parent.splice(i, 0, structuredClone(value));
  } else if (isRecord(parent)) {
    if (replace && !(key in parent))
      throw unprocessable(
        `jsonpatch replace operation does not apply: doc is missing key: ${pointer}`,
      );
    parent[key] = structuredClone(value);
  } else {
    throw unprocessable(`jsonpatch: cannot apply to ${pointer}`);
  }
  return doc;
}

/** RFC 6902 on a copy of `target`; a failing `test` or bad path is 422, a malformed body 400. */
export function jsonPatch(target: unknown, ops: unknown): unknown {
  if (!Array.isArray(ops)) throw badRequest('the JSON patch body must be an array of operations');
  let doc = structuredClone(target);
  for (const raw of ops) {
    if (!isRecord(raw) || typeof raw.op !== 'string' || typeof raw.path !== 'string') {
      throw badRequest('invalid JSON patch operation');
    }
    const op = raw as unknown as JsonPatchOp;
    switch (op.op) {
      case 'add':
        doc = addAt(doc, op.path, op.value, false);
        break;
      case 'replace':
        doc = addAt(doc, op.path, op.value, true);
        break;
      case 'remove':
        removeAt(doc, op.path);
        break;
      case 'move':
        doc = addAt(doc, op.path, removeAt(doc, op.from ?? ''), false);
        break;
      case 'copy':
        doc = addAt(doc, op.path, getAt(doc, op.from ?? ''), false);
        break;
      case 'test':
        if (JSON.stringify(getAt(doc, op.path)) !== JSON.stringify(op.value)) {
          throw unprocessable(
            `the server rejected our request due to an error in our request: testing value ${op.path} failed`,
          );
        }
        break;
      default:
        throw badRequest(`unexpected JSON patch operation: ${op.op}`);
    }
  }
  return doc;
}
