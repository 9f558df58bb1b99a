/**
 * The shipped kustomize bases as the API server would receive them: `kubectl kustomize <dir>`
 * (kubectl's built-in kustomize; kubectl is on every machine that runs the tests).
 */
import { execFileSync } from 'node:child_process';
import { parseAllDocuments } from 'yaml';
import { packagePath } from '../../src/paths.js';

/** A rendered object, loosely typed: tests read the fields they check. */
export interface Rendered {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string> };
  [field: string]: unknown;
}

/** The objects `kubectl kustomize` renders from `dir` (relative to the repository root). */
export function kustomize(dir: string): Rendered[] {
  const text = execFileSync('kubectl', ['kustomize', packagePath(dir)], { encoding: 'utf8' });
  const docs = parseAllDocuments(text);
  for (const doc of docs) if (doc.errors[0] !== undefined) throw new Error(doc.errors[0].message);
  return docs.map((d) => d.toJS() as Rendered);
}

/** The one object of `kind` (and `name`, when given) among `objects`; throws when absent. */
export function only(objects: readonly Rendered[], kind: string, name?: string): Rendered {
  const found = objects.filter(
    (o) => o.kind === kind && (name === undefined || o.metadata.name === name),
  );
  if (found.length !== 1)
    throw new Error(`expected one ${kind} ${name ?? ''}, found ${String(found.length)}`);
  const [object] = found;
  if (object === undefined) throw new Error('unreachable');
  return object;
}
