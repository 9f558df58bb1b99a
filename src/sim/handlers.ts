/**
 * The resource verbs over HTTP: get, list (selectors, limit/continue), watch, create, update,
 * patch, delete and deletecollection, on the main resource and the status subresource.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { parse as parseYaml } from 'yaml';
import { metaString } from './meta.js';
import type { FieldValidation, ObjectService, WriteResult } from './objects.js';
import { jsonPatch, mergePatch, patchKindOf } from './patch.js';
import type { ResourceRequest } from './request-info.js';
import type { ResourceType, SimObject } from './resources.js';
import { apiVersionOf } from './resources.js';
import { parseFieldSelector, parseLabelSelector } from './selectors.js';
import type { KubeStatus } from './status-errors.js';
import {
  badRequest,
  unsupportedBodyType,
  pathNotFound,
  success,
  unsupportedMediaType,
  methodNotSupported,
} from './status-errors.js';
import type { ObjectStore } from './store.js';
import type { WatchManager } from './watch.js';
import { wantsTable, toTable } from './table.js';
import { decodeProtobuf } from './protobuf.js';

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

function decodeBody(req: IncomingMessage, raw: Buffer): unknown {
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

function fieldValidation(q: URLSearchParams): FieldValidation | undefined {
  const v = q.get('fieldValidation');
  if (v === null || v === '') return undefined;
  if (v === 'Ignore' || v === 'Warn' || v === 'Strict') return v;
  throw badRequest(`fieldValidation must be one of "Ignore", "Warn", "Strict"; got "${v}"`);
}

function paginate(
  items: SimObject[],
  q: URLSearchParams,
): { items: SimObject[]; next: string | undefined; remaining: number } {
  const limit = Number(q.get('limit') ?? '0');
  const token = q.get('continue');
  let start = 0;
  if (token !== null && token !== '') {
    const after = Buffer.from(token, 'base64url').toString('utf8');
    start = items.findIndex(
      (o) => `${metaString(o, 'namespace')}/${metaString(o, 'name')}` > after,
    );
    if (start < 0) start = items.length;
  }
  if (!Number.isInteger(limit) || limit <= 0 || start + limit >= items.length) {
    return { items: items.slice(start), next: undefined, remaining: 0 };
  }
  const page = items.slice(start, start + limit);
  const last = page[page.length - 1];
  const key =
    last === undefined ? '' : `${metaString(last, 'namespace')}/${metaString(last, 'name')}`;
  return {
    items: page,
    next: Buffer.from(key).toString('base64url'),
    remaining: items.length - start - limit,
  };
}

function selected(ctx: HandlerContext, type: ResourceType, r: ResourceRequest): SimObject[] {
  const byLabel = parseLabelSelector(r.query.get('labelSelector'));
  const byField = parseFieldSelector(r.query.get('fieldSelector'));
  return ctx.objects.list(type, r.namespace).filter((o) => byLabel(o) && byField(o));
}

function list(
  ctx: HandlerContext,
  type: ResourceType,
  r: ResourceRequest,
  req: IncomingMessage,
  res: ServerResponse,
): void {
  const page = paginate(selected(ctx, type, r), r.query);
  const metadata: Record<string, unknown> = { resourceVersion: String(ctx.store.currentRv()) };
  if (page.next !== undefined) {
    metadata.continue = page.next;
    metadata.remainingItemCount = page.remaining;
  }
  // Built-in lists omit apiVersion/kind on items, as the real server's typed encoders do.
  const items = type.builtin
    ? page.items.map((o) => {
        const rest = { ...o };
        delete rest.apiVersion;
        delete rest.kind;
        return rest;
      })
    : page.items;
  if (wantsTable(req)) {
    sendJson(res, 200, toTable(type, page.items, metadata));
    return;
  }
  sendJson(res, 200, { apiVersion: apiVersionOf(type), kind: type.listKind, metadata, items });
}

function watch(
  ctx: HandlerContext,
  type: ResourceType,
  r: ResourceRequest,
  res: ServerResponse,
): void {
  const byLabel = parseLabelSelector(r.query.get('labelSelector'));
  const byField = parseFieldSelector(r.query.get('fieldSelector'));
  const name = r.name;
  const timeout = r.query.get('timeoutSeconds');
  ctx.watches.serve(res, {
    type,
    namespace: r.namespace,
    matcher: (o) => byLabel(o) && byField(o) && (name === '' || metaString(o, 'name') === name),
    resourceVersion: r.query.get('resourceVersion') ?? '',
    allowBookmarks: r.query.get('allowWatchBookmarks') === 'true',
    sendInitialEvents: r.query.get('sendInitialEvents') === 'true',
    timeoutSeconds: timeout === null ? undefined : Number(timeout),
  });
}

function patch(
  ctx: HandlerContext,
  type: ResourceType,
  r: ResourceRequest,
  req: IncomingMessage,
  raw: Buffer,
  opts: { subresource?: 'status'; fieldValidation?: FieldValidation },
): WriteResult {
  const contentType = req.headers['content-type'] ?? '';
  const kind = patchKindOf(contentType);
  if (kind === 'apply') throw unsupportedMediaType('application/apply-patch+yaml');
  let body: unknown;
  try {
    body = JSON.parse(raw.toString('utf8'));
  } catch {
    throw badRequest('the body of the request could not be decoded as JSON');
  }
  const existing = ctx.objects.existing(type, r.namespace, r.name);
  const patchedObj =
    kind === 'json'
      ? jsonPatch(existing, body)
      : mergePatch(existing, body, kind === 'strategic' && type.builtin);
  return ctx.objects.patched(type, existing, patchedObj, opts);
}

function deletePreconditions(body: unknown): { uid?: string; resourceVersion?: string } {
  if (typeof body !== 'object' || body === null) return {};
  const pre = (body as Record<string, unknown>).preconditions;
  if (typeof pre !== 'object' || pre === null) return {};
  const p = pre as Record<string, unknown>;
  const out: { uid?: string; resourceVersion?: string } = {};
  if (typeof p.uid === 'string') out.uid = p.uid;
  if (typeof p.resourceVersion === 'string') out.resourceVersion = p.resourceVersion;
  return out;
}

/** Serves one resource request whose type is known and whose caller is authorized. */
export function handleResource(
  ctx: HandlerContext,
  type: ResourceType,
  r: ResourceRequest,
  req: IncomingMessage,
  res: ServerResponse,
  raw: Buffer,
): void {
  if (r.subresource !== '' && !(r.subresource === 'status' && type.statusSubresource))
    throw pathNotFound();
  const subresource = r.subresource === 'status' ? ('status' as const) : undefined;
  const opts = {
    fieldValidation: fieldValidation(r.query),
    ...(subresource !== undefined ? { subresource } : {}),
  };
  switch (r.verb) {
    case 'get': {
      const obj = ctx.objects.get(type, r.namespace, r.name);
      sendJson(
        res,
        200,
        wantsTable(req)
          ? toTable(type, [obj], { resourceVersion: String(ctx.store.currentRv()) })
          : obj,
      );
      return;
    }
    case 'list':
      list(ctx, type, r, req, res);
      return;
    case 'watch':
      watch(ctx, type, r, res);
      return;
    case 'create': {
      if (subresource !== undefined || r.name !== '') throw methodNotSupported();
      const result = ctx.objects.create(type, decodeBody(req, raw), r.namespace, opts);
      sendJson(res, 201, result.object, result.warnings);
      return;
    }
    case 'update': {
      const result = ctx.objects.update(type, decodeBody(req, raw), r.namespace, r.name, opts);
      sendJson(res, 200, result.object, result.warnings);
      return;
    }
    case 'patch': {
      const result = patch(ctx, type, r, req, raw, opts);
      sendJson(res, 200, result.object, result.warnings);
      return;
    }
    case 'delete': {
      if (subresource !== undefined) throw methodNotSupported();
      const obj = ctx.objects.delete(
        type,
        r.namespace,
        r.name,
        deletePreconditions(decodeBody(req, raw)),
      );
      const answerWithObject =
        !type.builtin ||
        type.resource === 'namespaces' ||
        type.resource === 'customresourcedefinitions';
      const details = {
        name: r.name,
        ...(type.group !== '' ? { group: type.group } : {}),
        kind: type.resource,
        uid: metaString(obj, 'uid'),
      };
      sendJson(res, 200, answerWithObject ? obj : success(details));
      return;
    }
    case 'deletecollection': {
      const victims = selected(ctx, type, r);
      for (const o of victims)
        ctx.objects.delete(type, metaString(o, 'namespace'), metaString(o, 'name'));
      sendJson(res, 200, {
        apiVersion: apiVersionOf(type),
        kind: type.listKind,
        metadata: { resourceVersion: String(ctx.store.currentRv()) },
        items: victims,
      });
      return;
    }
  }
}
