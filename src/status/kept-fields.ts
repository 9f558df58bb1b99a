/**
 * Whether the Pipeline CRD installed in the management cluster keeps what the gateway writes
 * into a Pipeline's status. The API server prunes every field a CRD's structural schema does
 * not declare, silently: with weave-gitops' own CRD installed, a status write would lose the
 * promotion records (and history, approvals, halts) that make each promotion happen once, and
 * the next check would promote again. Pure: schemas in, the paths that would be lost out.
 */

/** An OpenAPI v3 schema node as a CRD declares it (or schemas/pipeline.schema.json). */
export type SchemaNode = Readonly<Record<string, unknown>>;

/** Paths are cut at this depth: a pruned object is reported once, not field by field. */
const MAX_DEPTH = 12;

/**
 * The status fields `ours` declares that `installed` would prune, as paths under `status`
 * (`status.environments.*.promotion`; `*` for a map's keys, `[]` for a list's items), the
 * shallowest of each pruned subtree; empty when the installed schema keeps everything.
 * Both are whole-object schemas (openAPIV3Schema); an installed schema without `status`, or a
 * subtree it marks `x-kubernetes-preserve-unknown-fields`, keeps nothing, or everything, below.
 */
export function prunedStatusFields(ours: SchemaNode, installed: SchemaNode): string[] {
  const lost: string[] = [];
  compare(properties(ours).status, properties(installed).status, 'status', lost, 0);
  return lost;
}

function compare(
  ours: SchemaNode | undefined,
  installed: SchemaNode | undefined,
  path: string,
  lost: string[],
  depth: number,
): void {
  if (ours === undefined || depth > MAX_DEPTH || keepsEverything(installed)) return;
  if (installed === undefined) {
    lost.push(path);
    return;
  }
  for (const [name, field] of Object.entries(properties(ours))) {
    compare(field, fieldSchema(installed, name), `${path}.${name}`, lost, depth + 1);
  }
  const values = mapValues(ours);
  if (values !== undefined) {
    const kept = installed.additionalProperties;
    if (kept !== true) compare(values, mapValues(installed), `${path}.*`, lost, depth + 1);
  }
  const items = child(ours, 'items');
  if (items !== undefined) compare(items, child(installed, 'items'), `${path}[]`, lost, depth + 1);
}

/** The installed schema of field `name` of an object: declared, or any key of a map. */
function fieldSchema(installed: SchemaNode, name: string): SchemaNode | undefined {
  const declared = properties(installed)[name];
  if (declared !== undefined) return declared;
  if (installed.additionalProperties === true)
    return { 'x-kubernetes-preserve-unknown-fields': true };
  return mapValues(installed);
}

function keepsEverything(node: SchemaNode | undefined): boolean {
  return node?.['x-kubernetes-preserve-unknown-fields'] === true;
}

function properties(node: SchemaNode): Readonly<Record<string, SchemaNode>> {
  const props = node.properties;
  return isNode(props) ? (props as Record<string, SchemaNode>) : {};
}

function mapValues(node: SchemaNode): SchemaNode | undefined {
  return child(node, 'additionalProperties');
}

function child(node: SchemaNode | undefined, name: string): SchemaNode | undefined {
  const value = node?.[name];
  return isNode(value) ? value : undefined;
}

function isNode(value: unknown): value is SchemaNode {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
