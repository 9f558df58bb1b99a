/**
 * OpenAPI v3 as kube-openapi's handler3 serves it: `/openapi/v3` lists every group-version with
 * a `serverRelativeURL` whose `hash` is the SHA-512 of that document (so a client's HTTP cache
 * can keep it while the hash holds), and `/openapi/v3/{api/v1 | apis/g/v}` is the document:
 * the resources' operations and, under `components.schemas`, each CRD version's
 * openAPIV3Schema and a permissive object for the built-ins, all with
 * `x-kubernetes-group-version-kind`.
 */
import { createHash } from 'node:crypto';
import { SIM_VERSION } from './discovery.js';
import { definitionName, gvkOf, gvPath, resourceOperations } from './openapi-paths.js';
import type { Registry, ResourceType } from './resources.js';

/** A group-version document and its hash (handler3's ETag). */
export interface V3Document {
  body: string;
  hash: string;
}

/**
 * The schema a kind is published with. kube-sim knows no built-in kind's real schema, so
 * those are objects that keep whatever they hold; kubectl then computes their patches from
 * its own compiled-in types, as it does when a schema says nothing.
 */
function kindSchema(t: ResourceType): Record<string, unknown> {
  const own = t.schema?.openAPIV3Schema;
  const base = own ?? { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };
  return { ...base, 'x-kubernetes-group-version-kind': [gvkOf(t)] };
}

function typesByPath(registry: Registry): Map<string, ResourceType[]> {
  const out = new Map<string, ResourceType[]>();
  for (const t of registry.all()) {
    const p = gvPath(t.group, t.version);
    out.set(p, [...(out.get(p) ?? []), t]);
  }
  return out;
}

function render(types: ResourceType[]): V3Document {
  const schemas: Record<string, unknown> = {};
  let paths: Record<string, unknown> = {};
  for (const t of types) {
    schemas[definitionName(t)] = kindSchema(t);
    paths = { ...paths, ...resourceOperations(t, false) };
  }
  const body = JSON.stringify({
    openapi: '3.0.0',
    info: { title: 'Kubernetes', version: SIM_VERSION.gitVersion },
    paths,
    components: { schemas },
  });
  return { body, hash: createHash('sha512').update(body).digest('hex').toUpperCase() };
}

/** GET /openapi/v3: the index of per group-version documents, each URL carrying its hash. */
export function openApiV3Index(registry: Registry): unknown {
  const paths: Record<string, unknown> = {};
  for (const [p, types] of typesByPath(registry)) {
    paths[p] = { serverRelativeURL: `/openapi/v3/${p}?hash=${render(types).hash}` };
  }
  return { paths };
}

/** GET /openapi/v3/{api/v1 | apis/g/v}, or undefined when the group-version is not served. */
export function openApiV3Document(registry: Registry, path: string): V3Document | undefined {
  const types = typesByPath(registry).get(path);
  return types === undefined ? undefined : render(types);
}
