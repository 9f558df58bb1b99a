/**
 * Per-write checks that do not depend on stored state: server-side defaults of the built-in
 * types we serve, and CRD schema pruning/validation with the fieldValidation modes.
 */
import { crdStatus } from './crd.js';
import { isRecord, metaOf, metaString, nameProblem } from './meta.js';
import type { FieldValidation } from './objects.js';
import type { ResourceType, SimObject } from './resources.js';
import { apiVersionOf, groupResource } from './resources.js';
import { badRequest, invalid } from './status-errors.js';

const CRD_GR = groupResource({
  group: 'apiextensions.k8s.io',
  resource: 'customresourcedefinitions',
});

/** Server-side defaults of the built-ins we serve (Secret stringData, Namespace phase, CRD status). */
export function builtinDefaults(type: ResourceType, obj: SimObject, now: string): SimObject {
  if (!type.builtin) return obj;
  if (type.resource === 'secrets' && isRecord(obj.stringData)) {
    const data: Record<string, unknown> = isRecord(obj.data) ? { ...obj.data } : {};
    for (const [k, v] of Object.entries(obj.stringData))
      data[k] = Buffer.from(String(v)).toString('base64');
    const out: SimObject = { ...obj, data };
    delete out.stringData;
    return out;
  }
  if (type.resource === 'namespaces') {
    return { ...obj, spec: { finalizers: ['kubernetes'] }, status: { phase: 'Active' } };
  }
  if (groupResource(type) === CRD_GR) return { ...obj, status: crdStatus(obj, now) };
  return obj;
}

/** Prunes/defaults/validates a custom object: 400 on unknown fields under Strict, 422 when invalid. */
export function checkSchema(
  type: ResourceType,
  obj: SimObject,
  mode: FieldValidation | undefined,
): { object: SimObject; warnings: string[] } {
  if (type.schema === undefined) return { object: obj, warnings: [] };
  const result = type.schema.check(obj);
  const unknown = result.unknownFields.map((f) => `unknown field "${f}"`);
  if (mode === 'Strict' && unknown.length > 0) {
    throw badRequest(
      `${type.kind} in version "${type.version}" cannot be handled as a ${type.kind}: strict decoding error: ${unknown.join(', ')}`,
    );
  }
  if (result.causes.length > 0)
    throw invalid(type.kind, type.group, metaString(obj, 'name'), result.causes);
  return { object: result.object, warnings: mode === 'Warn' ? unknown : [] };
}

/** Body checks common to create and update: an object of the URL's kind and namespace. */
export function decodeWriteBody(type: ResourceType, body: unknown, namespace: string): SimObject {
  if (!isRecord(body)) throw badRequest('the body of the request must be a JSON object');
  const apiVersion = apiVersionOf(type);
  if (
    typeof body.apiVersion === 'string' &&
    body.apiVersion !== '' &&
    body.apiVersion !== apiVersion
  ) {
    throw badRequest(
      `the API version in the data (${body.apiVersion}) does not match the expected API version (${apiVersion})`,
    );
  }
  if (typeof body.kind === 'string' && body.kind !== '' && body.kind !== type.kind) {
    throw badRequest(
      `the kind in the data (${body.kind}) does not match the expected kind (${type.kind})`,
    );
  }
  const bodyNs = metaString(body, 'namespace');
  if (type.namespaced && namespace !== '' && bodyNs !== '' && bodyNs !== namespace) {
    throw badRequest(
      'the namespace of the provided object does not match the namespace sent on the request',
    );
  }
  return { ...body, apiVersion, kind: type.kind, metadata: { ...metaOf(body) } };
}

/** Refuses a missing or malformed metadata.name with the real server's Invalid causes. */
export function checkName(type: ResourceType, name: string): void {
  if (name === '') {
    const cause = {
      reason: 'FieldValueRequired',
      message: 'Required value: name or generateName is required',
      field: 'metadata.name',
    };
    throw invalid(type.kind, type.group, name, [cause]);
  }
  const problem = nameProblem(name, type.resource === 'namespaces');
  if (problem !== undefined)
    throw invalid(type.kind, type.group, name, [
      { reason: 'FieldValueInvalid', message: problem, field: 'metadata.name' },
    ]);
}
