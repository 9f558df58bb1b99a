/**
 * Per-write checks that do not depend on stored state: server-side defaults of the built-in
 * types we serve, and CRD schema pruning/validation with the fieldValidation modes.
 */
import { crdStatus } from './crd.js';
import { isRecord, metaString } from './meta.js';
import type { FieldValidation } from './objects.js';
import type { ResourceType, SimObject } from './resources.js';
import { groupResource } from './resources.js';
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
