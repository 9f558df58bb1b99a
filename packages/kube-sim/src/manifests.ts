/**
 * Loading YAML manifests into a simulated cluster from code: CRDs first (so the objects that
 * use them validate), then namespaces, then everything else.
 */
import { readFile } from 'node:fs/promises';
import { parseAllDocuments } from 'yaml';
import type { SimCluster } from './cluster.js';
import type { SimObject } from './resources.js';

/** Parses a multi-document YAML string into objects, skipping empty documents. */
export function parseManifests(text: string): SimObject[] {
  const out: SimObject[] = [];
  for (const doc of parseAllDocuments(text)) {
    if (doc.errors.length > 0)
      throw new Error(`kube-sim: invalid YAML: ${doc.errors[0]?.message ?? ''}`);
    const value: unknown = doc.toJS();
    if (typeof value === 'object' && value !== null && !Array.isArray(value))
      out.push(value as SimObject);
  }
  return out;
}

function rank(obj: SimObject): number {
  if (obj.kind === 'CustomResourceDefinition') return 0;
  if (obj.kind === 'Namespace') return 1;
  return 2;
}

/**
 * Applies objects in dependency order, creating missing namespaces. A manifest's
 * resourceVersion and uid (often left in exported YAML) are dropped, not used as preconditions.
 * Returns the stored objects.
 */
export function applyAll(cluster: SimCluster, objects: SimObject[]): SimObject[] {
  const sorted = [...objects].sort((a, b) => rank(a) - rank(b));
  return sorted.map((original) => {
    const meta = { ...(original.metadata as Record<string, unknown> | undefined) };
    delete meta.resourceVersion;
    delete meta.uid;
    const obj: SimObject = { ...original, metadata: meta };
    if (rank(obj) === 2 && typeof meta.namespace === 'string' && meta.namespace !== '')
      cluster.ensureNamespace(meta.namespace);
    return cluster.apply(obj);
  });
}

/** Reads YAML files and applies every document to `cluster`. */
export async function applyFiles(cluster: SimCluster, paths: string[]): Promise<SimObject[]> {
  const objects: SimObject[] = [];
  for (const p of paths) objects.push(...parseManifests(await readFile(p, 'utf8')));
  return applyAll(cluster, objects);
}
