/**
 * A CRD's openAPIV3Schema and a JSON Schema file compared as ajv sees them. Normalisation:
 * `description`, `title`, `$schema`, `$comment`, `$id` and `x-kubernetes-*` are dropped on both
 * sides (documentation and API-server-only hints); `default` is kept (ajv treats it as an
 * annotation unless useDefaults is on, so the two must still agree on it).
 */
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';

/** A JSON object, loosely typed: tests read the fields they check. */
export type Json = Record<string, unknown>;

const DROPPED = new Set(['description', 'title', '$schema', '$comment', '$id']);
const SCHEMA_MAPS = new Set(['properties', 'patternProperties', 'definitions']);
const SCHEMA_LISTS = new Set(['anyOf', 'oneOf', 'allOf']);
const SCHEMA_VALUES = new Set(['items', 'additionalProperties', 'not']);

/** Walks schema positions only, so a property literally named "description" would survive. */
export function normalise(schema: unknown): unknown {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) return schema;
  const out: Json = {};
  for (const [key, value] of Object.entries(schema)) {
    if (DROPPED.has(key) || key.startsWith('x-kubernetes-')) continue;
    if (SCHEMA_MAPS.has(key))
      out[key] = Object.fromEntries(
        Object.entries(value as Json).map(([name, sub]) => [name, normalise(sub)]),
      );
    else if (SCHEMA_LISTS.has(key)) out[key] = (value as unknown[]).map(normalise);
    else if (SCHEMA_VALUES.has(key)) out[key] = normalise(value);
    else out[key] = value;
  }
  return out;
}

/** A YAML file's (first) document. */
export function readYaml(path: string): Json {
  return parse(readFileSync(path, 'utf8')) as Json;
}

/** The first version's openAPIV3Schema of a CRD. */
export function openApiOf(crd: Json): Json {
  return (crd as { spec: { versions: { schema: { openAPIV3Schema: Json } }[] } }).spec.versions[0]!
    .schema.openAPIV3Schema;
}
