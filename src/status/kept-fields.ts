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
 * Both are whole-object schemas (openAPIV3Schema); an installed schema without `status` keeps
 * nothing of it, and where it sets `x-kubernetes-preserve-unknown-fields` it keeps what it does
 * not declare.
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
  if (ours === undefined || depth > MAX_DEPTH) return;
  if (installed === undefined) {
    lost.push(path);
    return;
  }
  // Under x-kubernetes-preserve-unknown-fields, what the installed schema does not declare is
  // kept; what it declares is still pruned by its own schema.
  const preserves = installed['x-kubernetes-preserve-unknown-fields'] === true;
  const below = (theirs: SchemaNode | undefined, field: SchemaNode, at: string) => {
    if (theirs !== undefined || !preserves) compare(field, theirs, at, lost, depth + 1);
  };
  for (const [name, field] of Object.entries(properties(ours))) {
    below(fieldSchema(installed, name), field, `${path}.${name}`);
  }
  const values = mapValues(ours);
  if (values !== undefined && installed.additionalProperties !== true)
    below(mapValues(installed), values, `${path}.*`);
  const items = child(ours, 'items');
  if (items !== undefined) below(child(installed, 'items'), items, `${path}[]`);
}

/** The installed schema of field `name` of an object: declared, or any key of a map. */
function fieldSchema(installed: SchemaNode, name: string): SchemaNode | undefined {
  const declared = properties(installed)[name];
  if (declared !== undefined) return declared;
  if (installed.additionalProperties === true)
    return { 'x-kubernetes-preserve-unknown-fields': true };
  return mapValues(installed);
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
