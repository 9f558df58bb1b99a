/**
 * CustomResourceDefinitions: turning a CRD object into served resource types, and checking
 * custom objects against a version's openAPIV3Schema the way the real server does (prune
 * unknown fields, drop nulls of non-nullable fields, apply defaults, then validate).
 * CEL rules (`x-kubernetes-validations`) are not evaluated.
 */
import { Ajv } from 'ajv';
import type { ErrorObject, ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import type { PrinterColumn, ResourceType, SimObject } from './resources.js';
import { fieldPathOf, validateCrdShape } from './schema-errors.js';
import { causesFromAjv } from './schema-errors.js';
import type { StatusCause } from './status-errors.js';
import { invalid } from './status-errors.js';

/** An OpenAPI v3 schema node as written in a CRD. */
export type JsonSchema = Record<string, unknown>;

/** The result of checking one object: the pruned+defaulted object and what went wrong. */
export interface SchemaResult {
  object: SimObject;
  /** Dotted paths of fields the structural schema does not declare (pruned). */
  unknownFields: string[];
  /** Validation failures as Status causes; empty when valid. */
  causes: StatusCause[];
}

/** Validation and pruning for one CRD version. */
export interface SchemaCheck {
  /** Prunes, defaults and validates a copy of `obj`. Never mutates its argument. */
  check(obj: SimObject): SchemaResult;
  /** The raw openAPIV3Schema, for /openapi/v3. */
  readonly openAPIV3Schema: JsonSchema;
}

/** Formats Kubernetes ignores or defines differently from ajv-formats; accepted as-is. */
const PERMISSIVE_FORMATS = [
  'int',
  'int32',
  'int64',
  'float',
  'double',
  'byte',
  'binary',
  'password',
  'duration',
];

function makeAjv(): Ajv {
  const ajv = new Ajv({ strict: false, allErrors: true, useDefaults: true, logger: false });
  addFormats.default(ajv, [
    'date-time',
    'date',
    'uri',
    'email',
    'uuid',
    'ipv4',
    'ipv6',
    'hostname',
  ]);
  for (const f of PERMISSIVE_FORMATS) ajv.addFormat(f, true);
  return ajv;
}

let sharedAjv: Ajv | undefined;

/** Compiles a version's schema; throws a plain Error with ajv's reason when it cannot. */
export function compileSchema(openAPIV3Schema: JsonSchema): SchemaCheck {
  sharedAjv ??= makeAjv();
  // Metadata is validated by the server itself, never by the CRD schema (as upstream).
  const forAjv: JsonSchema = { ...openAPIV3Schema };
  const props = forAjv.properties;
  if (isRecord(props)) forAjv.properties = { ...props, metadata: { type: 'object' } };
  const validate: ValidateFunction = sharedAjv.compile(forAjv);
  return {
    openAPIV3Schema,
    check(obj: SimObject): SchemaResult {
      const unknownFields: string[] = [];
      const object = prune(
        structuredClone(obj),
        openAPIV3Schema,
        '',
        unknownFields,
        true,
      ) as SimObject;
      const ok = validate(object);
      const errors: ErrorObject[] = ok ? [] : (validate.errors ?? []);
      return { object, unknownFields, causes: causesFromAjv(errors, object) };
    },
  };
}

/** ObjectMeta fields; anything else in metadata is pruned like an unknown field. */
const META_FIELDS = new Set([
  'name',
  'generateName',
  'namespace',
  'selfLink',
  'uid',
  'resourceVersion',
  'generation',
  'creationTimestamp',
  'deletionTimestamp',
  'deletionGracePeriodSeconds',
  'labels',
  'annotations',
  'ownerReferences',
  'finalizers',
  'managedFields',
]);

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function pruneMeta(meta: unknown, path: string, unknown: string[]): unknown {
  if (!isRecord(meta)) return meta;
  for (const key of Object.keys(meta)) {
    if (!META_FIELDS.has(key)) {
      unknown.push(`${path}.${key}`);
      Reflect.deleteProperty(meta, key);
    }
  }
  return meta;
}

/** How a schema treats fields it does not declare. */
interface FieldRules {
  props: Record<string, unknown> | undefined;
  additional: unknown;
  /** Unknown fields are kept (preserve-unknown-fields or additionalProperties: true). */
  keepsUnknown: boolean;
  /** apiVersion, kind and metadata follow embedded-resource rules. */
  embedded: boolean;
}

function fieldRules(schema: Record<string, unknown>, root: boolean): FieldRules {
  const additional = schema.additionalProperties;
  return {
    props: isRecord(schema.properties) ? schema.properties : undefined,
    additional,
    keepsUnknown: schema['x-kubernetes-preserve-unknown-fields'] === true || additional === true,
    embedded: root || schema['x-kubernetes-embedded-resource'] === true,
  };
}

/** Prunes one field of an object node; `path` is its dotted path. */
function pruneField(
  node: Record<string, unknown>,
  key: string,
  rules: FieldRules,
  path: string,
  unknown: string[],
): void {
  if (rules.embedded && (key === 'apiVersion' || key === 'kind')) return;
  if (rules.embedded && key === 'metadata') {
    node[key] = pruneMeta(node[key], path, unknown);
    return;
  }
  const childSchema =
    rules.props?.[key] ?? (isRecord(rules.additional) ? rules.additional : undefined);
  if (childSchema === undefined) {
    if (rules.keepsUnknown) return;
    unknown.push(path);
    Reflect.deleteProperty(node, key);
    return;
  }
  // Upstream drops nulls of non-nullable fields before defaulting instead of rejecting them.
  if (node[key] === null && !(isRecord(childSchema) && childSchema.nullable === true)) {
    Reflect.deleteProperty(node, key);
    return;
  }
  node[key] = prune(node[key], childSchema, path, unknown);
}

/** Structural pruning; `path` is the dotted field path of `node`. Mutates and returns `node`. */
function prune(
  node: unknown,
  schema: unknown,
  path: string,
  unknown: string[],
  root = false,
): unknown {
  if (!isRecord(schema)) return node;
  if (Array.isArray(node)) {
    node.forEach((item, i) => {
      node[i] = prune(item, schema.items, `${path}[${i}]`, unknown);
    });
    return node;
  }
  if (!isRecord(node)) return node;
  const rules = fieldRules(schema, root);
  if (rules.props === undefined && !isRecord(rules.additional) && rules.keepsUnknown) return node;
  for (const key of Object.keys(node)) {
    pruneField(node, key, rules, path === '' ? key : `${path}.${key}`, unknown);
  }
  return node;
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' && v !== '' ? v : undefined;
}

function stringList(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
}

function printerColumns(v: unknown): PrinterColumn[] {
  if (!Array.isArray(v)) return [];
  return v.filter(isRecord).map((c) => {
    const col: PrinterColumn = {
      name: str(c.name) ?? '',
      type: str(c.type) ?? 'string',
      jsonPath: str(c.jsonPath) ?? '',
    };
    if (typeof c.description === 'string') col.description = c.description;
    if (typeof c.priority === 'number') col.priority = c.priority;
    if (typeof c.format === 'string') col.format = c.format;
    return col;
  });
}

/**
 * The resource types a CRD serves (one per served version), with compiled schemas.
 * Throws a 422 SimError when the CRD itself is invalid or a schema does not compile.
 */
export function crdToTypes(crd: SimObject): ResourceType[] {
  const name = isRecord(crd.metadata) ? (str(crd.metadata.name) ?? '') : '';
  const problems = validateCrdShape(crd, name);
  const spec = isRecord(crd.spec) ? crd.spec : {};
  const names = isRecord(spec.names) ? spec.names : {};
  const versions = Array.isArray(spec.versions) ? spec.versions.filter(isRecord) : [];
  const group = str(spec.group) ?? '';
  const plural = str(names.plural) ?? '';
  const kind = str(names.kind) ?? '';
  const types: ResourceType[] = [];
  versions.forEach((v, i) => {
    if (v.served !== true) return;
    const openAPIV3Schema =
      isRecord(v.schema) && isRecord(v.schema.openAPIV3Schema)
        ? v.schema.openAPIV3Schema
        : undefined;
    let schema: SchemaCheck | undefined;
    if (openAPIV3Schema !== undefined) {
      try {
        schema = compileSchema(openAPIV3Schema);
      } catch (err) {
        const field = fieldPathOf(['spec', 'versions', i, 'schema', 'openAPIV3Schema']);
        problems.push({
          reason: 'FieldValueInvalid',
          field,
          message: `Invalid value: schema: ${String(err)}`,
        });
      }
    }
    const subresources = isRecord(v.subresources) ? v.subresources : {};
    const type: ResourceType = {
      group,
      version: str(v.name) ?? '',
      resource: plural,
      singular: str(names.singular) ?? kind.toLowerCase(),
      kind,
      listKind: str(names.listKind) ?? `${kind}List`,
      namespaced: spec.scope !== 'Cluster',
      shortNames: stringList(names.shortNames),
      categories: stringList(names.categories),
      statusSubresource: subresources.status !== undefined,
      builtin: false,
      tracksGeneration: true,
      printerColumns: printerColumns(v.additionalPrinterColumns),
    };
    if (schema !== undefined) type.schema = schema;
    types.push(type);
  });
  if (problems.length > 0)
    throw invalid('CustomResourceDefinition', 'apiextensions.k8s.io', name, problems);
  return types;
}

/** The status a real server reports for an established CRD. */
export function crdStatus(crd: SimObject, now: string): SimObject {
  const spec = isRecord(crd.spec) ? crd.spec : {};
  const versions = Array.isArray(spec.versions) ? spec.versions.filter(isRecord) : [];
  const storage = versions.find((v) => v.storage === true)?.name;
  const condition = (type: string, reason: string, message: string): SimObject => ({
    type,
    status: 'True',
    lastTransitionTime: now,
    reason,
    message,
  });
  return {
    acceptedNames: spec.names ?? {},
    conditions: [
      condition('NamesAccepted', 'NoConflicts', 'no conflicts found'),
      condition('Established', 'InitialNamesAccepted', 'the initial names have been accepted'),
    ],
    storedVersions: typeof storage === 'string' ? [storage] : [],
  };
}
