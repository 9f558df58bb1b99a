/**
 * The write verbs: create, update, patch, delete and deletecollection.
 */
import type { ResourceCall, WriteOptions } from './handlers.js';
import { decodeBody, sendJson } from './handlers.js';
import { metaString } from './meta.js';
import type { WriteResult } from './objects.js';
import { jsonPatch, mergePatch, patchKindOf } from './patch.js';
import { apiVersionOf } from './resources.js';
import { badRequest, methodNotSupported, success, unsupportedMediaType } from './status-errors.js';
import { selected } from './verbs-read.js';

/** CREATE in a collection (never on a named object or the status subresource). */
export function create({ ctx, type, r, req, res, raw }: ResourceCall, opts: WriteOptions): void {
  if (opts.subresource !== undefined || r.name !== '') throw methodNotSupported();
  const result = ctx.objects.create({
    type,
    body: decodeBody(req, raw),
    namespace: r.namespace,
    opts,
  });
  sendJson(res, 201, result.object, result.warnings);
}

/** UPDATE (PUT) of one object or its status. */
export function update({ ctx, type, r, req, res, raw }: ResourceCall, opts: WriteOptions): void {
  const write = { type, body: decodeBody(req, raw), namespace: r.namespace, opts };
  const result = ctx.objects.update(write, r.name);
  sendJson(res, 200, result.object, result.warnings);
}

/** PATCH: merge, JSON or (built-ins) strategic merge patch; apply patches are refused. */
export function patch(call: ResourceCall, opts: WriteOptions): void {
  const result = patched(call, opts);
  sendJson(call.res, 200, result.object, result.warnings);
}

function patched({ ctx, type, r, req, raw }: ResourceCall, opts: WriteOptions): WriteResult {
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

/**
 * DELETE of one object: custom resources, namespaces and CRDs answer with the object, other
 * built-ins with a Success Status, as the real server does.
 */
export function deleteOne({ ctx, type, r, req, res, raw }: ResourceCall, opts: WriteOptions): void {
  if (opts.subresource !== undefined) throw methodNotSupported();
  const obj = ctx.objects.delete(
    type,
    r.namespace,
    r.name,
    deletePreconditions(decodeBody(req, raw)),
    opts.dryRun === true,
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
}

/** DELETECOLLECTION: every selected object, answered as a list of them. */
export function deleteCollection(call: ResourceCall, opts: WriteOptions): void {
  const { ctx, type, res } = call;
  const victims = selected(call);
  for (const o of victims)
    ctx.objects.delete(type, metaString(o, 'namespace'), metaString(o, 'name'), {}, opts.dryRun);
  sendJson(res, 200, {
    apiVersion: apiVersionOf(type),
    kind: type.listKind,
    metadata: { resourceVersion: String(ctx.store.currentRv()) },
    items: victims,
  });
}
