/**
 * The resource verbs over HTTP: get, list (selectors, limit/continue), watch, create, update,
 * patch, delete and deletecollection, on the main resource and the status subresource. This
 * module dispatches and holds the wire helpers; the verbs live in verbs-read.ts and
 * verbs-write.ts.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { parse as parseYaml } from 'yaml';
import type { FieldValidation, ObjectService } from './objects.js';
import { decodeProtobuf } from './protobuf.js';
import type { ResourceRequest, Verb } from './request-info.js';
import type { ResourceType } from './resources.js';
import type { KubeStatus } from './status-errors.js';
import { badRequest, invalid, pathNotFound, unsupportedBodyType } from './status-errors.js';
import type { ObjectStore } from './store.js';
import { getOne, list, watch } from './verbs-read.js';
import { create, deleteCollection, deleteOne, patch, update } from './verbs-write.js';
import type { WatchManager } from './watch.js';

/** One resource request being served: the cluster's services and the request itself. */
export interface ResourceCall {
  ctx: HandlerContext;
  type: ResourceType;
  r: ResourceRequest;
  req: IncomingMessage;
  res: ServerResponse;
  raw: Buffer;
}

/** How a write treats the status subresource and unknown fields, and whether it is a dry run. */
export interface WriteOptions {
  subresource?: 'status';
  fieldValidation?: FieldValidation;
  dryRun?: boolean;
}

/** What the verb handlers need from their cluster. */
export interface HandlerContext {
  objects: ObjectService;
  store: ObjectStore;
  watches: WatchManager;
}

/** Writes a JSON response, with Warning headers as the real server sends them. */
export function sendJson(
  res: ServerResponse,
  code: number,
  body: unknown,
  warnings: string[] = [],
): void {
  const payload = JSON.stringify(body);
  const headers: Record<string, string | string[]> = {
    'Content-Type': 'application/json',
    'Cache-Control': 'no-cache, private',
    'Content-Length': String(Buffer.byteLength(payload)),
  };
  if (warnings.length > 0) headers.Warning = warnings.map((w) => `299 - ${JSON.stringify(w)}`);
  res.writeHead(code, headers);
  res.end(payload);
}

/** Writes a Status body with its code (and Retry-After for 429, as the real server does). */
export function sendStatus(res: ServerResponse, status: KubeStatus): void {
  if (status.details?.retryAfterSeconds !== undefined)
    res.setHeader('Retry-After', String(status.details.retryAfterSeconds));
  sendJson(res, status.code, status);
}

/** The request body as JSON, YAML or (for a few core kinds) protobuf; undefined when empty. */
export function decodeBody(req: IncomingMessage, raw: Buffer): unknown {
  const text = raw.toString('utf8');
  if (text.trim() === '') return undefined;
  const ct = (req.headers['content-type'] ?? 'application/json').toLowerCase();
  if (ct.includes('protobuf')) {
    try {
      return decodeProtobuf(raw);
    } catch {
      throw unsupportedBodyType(ct.split(';')[0] ?? ct);
    }
  }
  if (ct.includes('cbor')) throw unsupportedBodyType(ct.split(';')[0] ?? ct);
  try {
    return ct.includes('yaml') ? parseYaml(text) : JSON.parse(text);
  } catch {
    throw badRequest('the body of the request could not be decoded');
  }
}

function fieldValidationOf(q: URLSearchParams): FieldValidation | undefined {
  const v = q.get('fieldValidation');
  if (v === null || v === '') return undefined;
  if (v === 'Ignore' || v === 'Warn' || v === 'Strict') return v;
  throw badRequest(`fieldValidation must be one of "Ignore", "Warn", "Strict"; got "${v}"`);
}

/**
 * The dryRun query parameter: `All` (validate, store nothing) or absent; anything else is
 * refused as the real server refuses it, before any check of the object.
 */
function dryRunOf(q: URLSearchParams, verb: Verb): boolean {
  const values = q.getAll('dryRun');
  if (values.length === 0) return false;
  if (values.every((v) => v === 'All')) return true;
  const kind =
    verb === 'create'
      ? 'Create'
      : verb === 'patch'
        ? 'Patch'
        : verb.startsWith('delete')
          ? 'Delete'
          : 'Update';
  const given = values.map((v) => JSON.stringify(v)).join(', ');
  throw invalid(`${kind}Options`, 'meta.k8s.io', '', [
    {
      reason: 'FieldValueNotSupported',
      field: 'dryRun',
      message: `Unsupported value: []string{${given}}: supported values: "All"`,
    },
  ]);
}

/** The handler of each verb. */
const VERBS: Readonly<Record<Verb, (call: ResourceCall, opts: WriteOptions) => void>> = {
  get: getOne,
  list,
  watch,
  create,
  update,
  patch,
  delete: deleteOne,
  deletecollection: deleteCollection,
};

/** Serves one resource request whose type is known and whose caller is authorized. */
export function handleResource(call: ResourceCall): void {
  const { type, r } = call;
  if (r.subresource !== '' && !(r.subresource === 'status' && type.statusSubresource))
    throw pathNotFound();
  const opts: WriteOptions = {
    ...(fieldValidationOf(r.query) === undefined
      ? {}
      : { fieldValidation: fieldValidationOf(r.query) }),
    ...(r.subresource === 'status' ? { subresource: 'status' as const } : {}),
    ...(dryRunOf(r.query, r.verb) ? { dryRun: true } : {}),
  };
  VERBS[r.verb](call, opts);
}
