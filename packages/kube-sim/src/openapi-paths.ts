/**
 * What the OpenAPI v2 and v3 documents share: definition names as the real server spells them,
 * the group-version paths, and one resource's operations. kubectl reads these operations (not
 * the schemas) to decide on server-side field validation (the `fieldValidation` parameter of
 * the PATCH operation carrying `x-kubernetes-group-version-kind`) and, from v2's `consumes`,
 * which patch type to compute; so they say only what kube-sim really accepts.
 */
import type { ResourceType } from './resources.js';

/** The real server's definition name of ObjectMeta, which every kind's `metadata` refers to. */
export const OBJECT_META = 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta';

/** `api/v1` or `apis/{group}/{version}`: a group-version's path under /openapi/v3. */
export function gvPath(group: string, version: string): string {
  return group === '' ? `api/${version}` : `apis/${group}/${version}`;
}

/** The kind's definition name, e.g. io.k8s.api.apps.v1.Deployment or io.fluxcd.toolkit.helm.v2.HelmRelease. */
export function definitionName(t: ResourceType): string {
  if (t.group === 'apiextensions.k8s.io')
    return `io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.${t.version}.${t.kind}`;
  const prefix = !t.builtin
    ? t.group.split('.').reverse().join('.')
    : `io.k8s.api.${t.group === '' ? 'core' : (t.group.split('.')[0] ?? '')}`;
  return `${prefix}.${t.version}.${t.kind}`;
}

/** The kind as `x-kubernetes-group-version-kind` names it. */
export function gvkOf(t: ResourceType): { group: string; version: string; kind: string } {
  return { group: t.group, version: t.version, kind: t.kind };
}

/** The patch content types kube-sim applies to this kind (no apply patches: 415). */
export function patchTypes(t: ResourceType): string[] {
  const common = ['application/json-patch+json', 'application/merge-patch+json'];
  return t.builtin ? [...common, 'application/strategic-merge-patch+json'] : common;
}

const QUERY_PARAMS = ['dryRun', 'fieldManager', 'fieldValidation', 'force', 'pretty'];

/** One query parameter in the shape of either document version. */
function queryParam(name: string, v2: boolean): Record<string, unknown> {
  const type = name === 'force' ? 'boolean' : 'string';
  return v2
    ? { name, in: 'query', type, uniqueItems: true }
    : { name, in: 'query', schema: { type, uniqueItems: true } };
}

/**
 * The operations of one resource: list and create on the collection, get, replace, patch and
 * delete on an object, each with the write parameters and the kind it acts on.
 */
export function resourceOperations(t: ResourceType, v2: boolean): Record<string, unknown> {
  const gvk = gvkOf(t);
  const parameters = QUERY_PARAMS.map((name) => queryParam(name, v2));
  const op = (action: string, consumes?: string[]): Record<string, unknown> => ({
    operationId: `${action}${t.kind}`,
    ...(v2 && consumes !== undefined ? { consumes } : {}),
    parameters,
    responses: { '200': { description: 'OK' } },
    'x-kubernetes-action': action,
    'x-kubernetes-group-version-kind': gvk,
  });
  const path = `/${gvPath(t.group, t.version)}${t.namespaced ? '/namespaces/{namespace}' : ''}/${t.resource}`;
  return {
    [path]: { get: op('list'), post: op('post', ['*/*']) },
    [`${path}/{name}`]: {
      get: op('get'),
      put: op('put', ['*/*']),
      patch: op('patch', patchTypes(t)),
      delete: op('delete'),
    },
  };
}
