/**
 * Parses a request line into what the API server's RequestInfoResolver derives: whether it is a
 * resource request, its verb (get/list/watch/create/update/patch/delete/deletecollection), and
 * group, version, namespace, resource, name and subresource.
 */

/** The verbs the API server authorizes and accounts. */
export type Verb =
  'get' | 'list' | 'watch' | 'create' | 'update' | 'patch' | 'delete' | 'deletecollection';

/** Every verb, in a stable order for reports. */
export const VERBS: readonly Verb[] = [
  'get',
  'list',
  'watch',
  'create',
  'update',
  'patch',
  'delete',
  'deletecollection',
];

/** A request for a resource path under /api or /apis. */
export interface ResourceRequest {
  kind: 'resource';
  verb: Verb;
  group: string;
  version: string;
  namespace: string;
  resource: string;
  name: string;
  subresource: string;
  query: URLSearchParams;
}

/** Anything else: discovery, /version, /openapi, health. */
export interface NonResourceRequest {
  kind: 'nonResource';
  path: string;
  method: string;
  query: URLSearchParams;
}

/** The parsed request. */
export type RequestInfo = ResourceRequest | NonResourceRequest;

function isTrue(v: string | null): boolean {
  return v === 'true' || v === '1';
}

function verbFor(method: string, hasName: boolean, watch: boolean): Verb | undefined {
  switch (method) {
    case 'GET':
    case 'HEAD':
      if (watch) return 'watch';
      return hasName ? 'get' : 'list';
    case 'POST':
      return 'create';
    case 'PUT':
      return 'update';
    case 'PATCH':
      return 'patch';
    case 'DELETE':
      return hasName ? 'delete' : 'deletecollection';
    default:
      return undefined;
  }
}

/**
 * Parses method + URL. Paths: /api/v1/..., /apis/{group}/{version}/..., optionally
 * namespaces/{ns}/{resource}[/{name}[/{subresource}]] and the legacy /watch/ prefix.
 */
export function parseRequest(method: string, rawUrl: string): RequestInfo {
  const url = new URL(rawUrl, 'http://sim.invalid');
  const query = url.searchParams;
  const parts = url.pathname
    .split('/')
    .filter((p) => p !== '')
    .map(decodeURIComponent);
  const nonResource: NonResourceRequest = {
    kind: 'nonResource',
    path: url.pathname,
    method,
    query,
  };
  let rest: string[];
  let group = '';
  let version: string;
  if (parts[0] === 'api' && parts.length >= 3) {
    version = parts[1] ?? '';
    rest = parts.slice(2);
  } else if (parts[0] === 'apis' && parts.length >= 4) {
    group = parts[1] ?? '';
    version = parts[2] ?? '';
    rest = parts.slice(3);
  } else {
    return nonResource;
  }
  let watch = isTrue(query.get('watch'));
  if (rest[0] === 'watch') {
    watch = true;
    rest = rest.slice(1);
  }
  let namespace = '';
  // "namespaces/{ns}/{resource}" addresses a namespaced resource; "namespaces[/{name}]" the namespace itself.
  if (
    rest[0] === 'namespaces' &&
    rest.length >= 3 &&
    rest[2] !== 'status' &&
    rest[2] !== 'finalize'
  ) {
    namespace = rest[1] ?? '';
    rest = rest.slice(2);
  }
  const [resource = '', name = '', subresource = ''] = rest;
  if (resource === '' || rest.length > 3) return nonResource;
  const verb = verbFor(method, name !== '', watch);
  if (verb === undefined) return nonResource;
  return { kind: 'resource', verb, group, version, namespace, resource, name, subresource, query };
}
