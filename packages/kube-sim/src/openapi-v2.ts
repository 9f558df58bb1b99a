/**
 * The OpenAPI v2 (Swagger 2.0) document of `/openapi/v2`, as JSON; openapi-proto.ts encodes it
 * for the protobuf clients. kubectl 1.27 and 1.28 read it on every `apply` (and parse all of
 * it), newer ones when they validate on the client (a `kind: List` file): its PATCH operations
 * say which kinds take `fieldValidation`, and its definitions are what kubectl validates
 * custom objects against. Each CRD version's schema is converted as the apiextensions server
 * does (ToStructuralOpenAPIV2), so that kube-openapi's parser accepts every node. Built-in
 * kinds have no definition: kube-sim does not know their schemas, and a kind without one is
 * what kubectl skips when validating and patches from its compiled-in types.
 */
import type { JsonSchema } from './crd.js';
import { SIM_VERSION } from './discovery.js';
import { isRecord } from './meta.js';
import { definitionName, gvkOf, OBJECT_META, resourceOperations } from './openapi-paths.js';
import type { Registry, ResourceType } from './resources.js';

/** Keywords a v2 schema keeps; anything else (nullable, oneOf, anyOf, not, ...) goes. */
const V2_KEYWORDS = new Set([
  'description',
  'type',
  'format',
  'title',
  'default',
  'enum',
  'example',
  'maximum',
  'minimum',
  'exclusiveMaximum',
  'exclusiveMinimum',
  'maxLength',
  'minLength',
  'pattern',
  'maxItems',
  'minItems',
  'uniqueItems',
  'maxProperties',
  'minProperties',
  'multipleOf',
  'required',
]);

const V2_TYPES = new Set(['object', 'array', 'string', 'number', 'integer', 'boolean']);

function mapValues(o: Record<string, unknown>, f: (s: JsonSchema) => JsonSchema): JsonSchema {
  const out: JsonSchema = {};
  for (const [k, v] of Object.entries(o)) out[k] = f(isRecord(v) ? v : {});
  return out;
}

/**
 * One schema node in v2 form: nullable and preserve-unknown-fields nodes lose their items and
 * properties (kubectl cannot cope with them there), a nullable node its type, an array
 * without an item schema its type; required fields that may be null are no longer required.
 */
export function toV2Schema(s: JsonSchema): JsonSchema {
  const out: JsonSchema = {};
  for (const [k, v] of Object.entries(s)) if (V2_KEYWORDS.has(k) || k.startsWith('x-')) out[k] = v;
  const nullable = s.nullable === true;
  const open = nullable || s['x-kubernetes-preserve-unknown-fields'] === true;
  if (!open && isRecord(s.properties)) out.properties = mapValues(s.properties, toV2Schema);
  if (!open && isRecord(s.items)) out.items = toV2Schema(s.items);
  if (isRecord(s.additionalProperties))
    out.additionalProperties = toV2Schema(s.additionalProperties);
  else if (typeof s.additionalProperties === 'boolean')
    out.additionalProperties = s.additionalProperties;
  if (nullable || typeof out.type !== 'string' || !V2_TYPES.has(out.type)) delete out.type;
  if (out.type === 'array' && out.items === undefined) delete out.type;
  const mayBeNull = (name: string): boolean =>
    isRecord(s.properties) && isRecord(s.properties[name]) && s.properties[name].nullable === true;
  if (Array.isArray(out.required)) {
    const required = out.required.filter((r) => typeof r === 'string' && !mayBeNull(r));
    if (required.length > 0) out.required = required;
    else delete out.required;
  }
  if (isRecord(s.additionalProperties) && s.additionalProperties.nullable === true)
    delete out.required;
  return out;
}

/** A CRD version's definition: its schema in v2 form with metadata as ObjectMeta. */
function crdDefinition(t: ResourceType, schema: JsonSchema): JsonSchema {
  const out = toV2Schema(schema);
  if (isRecord(out.properties)) {
    const string = { type: 'string' };
    out.properties = {
      ...out.properties,
      apiVersion: isRecord(out.properties.apiVersion) ? out.properties.apiVersion : string,
      kind: isRecord(out.properties.kind) ? out.properties.kind : string,
      metadata: { $ref: `#/definitions/${OBJECT_META}` },
    };
  }
  out['x-kubernetes-group-version-kind'] = [gvkOf(t)];
  return out;
}

/** ObjectMeta with its real fields, so a misspelt metadata field is refused like upstream. */
function objectMeta(): JsonSchema {
  const string = { type: 'string' };
  const int64 = { type: 'integer', format: 'int64' };
  const time = { type: 'string', format: 'date-time' };
  const stringMap = { type: 'object', additionalProperties: string };
  const ownerReference = {
    type: 'object',
    required: ['apiVersion', 'kind', 'name', 'uid'],
    properties: {
      apiVersion: string,
      blockOwnerDeletion: { type: 'boolean' },
      controller: { type: 'boolean' },
      kind: string,
      name: string,
      uid: string,
    },
  };
  return {
    type: 'object',
    properties: {
      annotations: stringMap,
      creationTimestamp: time,
      deletionGracePeriodSeconds: int64,
      deletionTimestamp: time,
      finalizers: { type: 'array', items: string },
      generateName: string,
      generation: int64,
      labels: stringMap,
      managedFields: { type: 'array', items: { type: 'object' } },
      name: string,
      namespace: string,
      ownerReferences: { type: 'array', items: ownerReference },
      resourceVersion: string,
      selfLink: string,
      uid: string,
    },
  };
}

/** GET /openapi/v2 as JSON: every resource's operations, ObjectMeta and every CRD version. */
export function openApiV2Document(registry: Registry): JsonSchema {
  let paths: JsonSchema = {};
  const definitions: JsonSchema = { [OBJECT_META]: objectMeta() };
  for (const t of registry.all()) {
    paths = { ...paths, ...resourceOperations(t, true) };
    const schema = t.builtin ? undefined : t.schema?.openAPIV3Schema;
    if (schema !== undefined) definitions[definitionName(t)] = crdDefinition(t, schema);
  }
  return {
    swagger: '2.0',
    info: { title: 'Kubernetes', version: SIM_VERSION.gitVersion },
    paths,
    definitions,
  };
}
