/**
 * Validation of a raw configuration against schemas/config.schema.json, with ajv filling in
 * defaults, and the translation of ajv's errors into one readable line per problem.
 */
import type { ErrorObject, ValidateFunction } from 'ajv';
import { compileSchema } from '../schemas.js';

let compiled: ValidateFunction | undefined;

function validator(): ValidateFunction {
  // strictRequired is off because `anyOf: [{required: [jwksUrl]}, ...]` names properties
  // declared beside the anyOf, which is correct JSON Schema but trips that one check.
  compiled ??= compileSchema('config.schema.json', {
    allErrors: true,
    useDefaults: true,
    strict: true,
    strictRequired: false,
    verbose: true,
  });
  return compiled;
}

/** Formats one problem line: `config /a/b: text`, or `config: text` for the root. */
export function problem(pointer: string, text: string): string {
  return pointer === '' ? `config: ${text}` : `config ${pointer}: ${text}`;
}

/** Escapes one JSON-pointer segment (RFC 6901). */
export function pointerSegment(key: string | number): string {
  return String(key).replaceAll('~', '~0').replaceAll('/', '~1');
}

/**
 * Validates `data` in place (ajv inserts defaults into it) and returns every problem found,
 * one line each; an empty list means valid. Lines name fields, never the values in them.
 */
export function validateShape(data: unknown): string[] {
  const validate = validator();
  if (validate(data)) return [];
  const problems = formatErrors(validate.errors ?? []);
  // verbose errors hold references to the data, secrets included: do not keep them around.
  validate.errors = null;
  return problems;
}

const SECRET_SOURCE_TEXT = 'must be an object with exactly one of "value", "file" or "env"';
const SECRET_SHAPE_KEYWORDS = new Set([
  'additionalProperties',
  'minProperties',
  'maxProperties',
  'type',
]);

/** Ajv errors -> problem lines, dropping the noise of anyOf branches and propertyNames wrappers. */
export function formatErrors(errors: readonly ErrorObject[]): string[] {
  const anyOfs = errors.filter((e) => e.keyword === 'anyOf' || e.keyword === 'oneOf');
  const lines = new Set<string>();
  for (const error of errors) {
    if (error.keyword === 'propertyNames') continue;
    if (anyOfs.some((outer) => outer !== error && isBranchOf(error, outer))) continue;
    lines.add(describe(error));
  }
  return [...lines];
}

function isBranchOf(error: ErrorObject, outer: ErrorObject): boolean {
  return (
    error.schemaPath.startsWith(`${outer.schemaPath}/`) &&
    error.instancePath.startsWith(outer.instancePath)
  );
}

function describe(error: ErrorObject): string {
  const at = error.instancePath;
  const params = error.params as Record<string, unknown>;
  // Inside a secret source, even a misplaced key could be the secret: never echo keys there.
  if (isSecretSourceSchema(error.parentSchema) && SECRET_SHAPE_KEYWORDS.has(error.keyword)) {
    return problem(at, SECRET_SOURCE_TEXT);
  }
  if (error.propertyName !== undefined) {
    return problem(`${at}/${pointerSegment(error.propertyName)}`, `name ${message(error)}`);
  }
  switch (error.keyword) {
    case 'required':
      return problem(`${at}/${pointerSegment(String(params.missingProperty))}`, 'is required');
    case 'additionalProperties':
      return problem(
        `${at}/${pointerSegment(String(params.additionalProperty))}`,
        'is not a known field',
      );
    case 'enum':
      return problem(at, `must be one of ${listOf(params.allowedValues)}`);
    case 'anyOf':
      return problem(at, anyOfText(error));
    default:
      return problem(at, message(error));
  }
}

function message(error: ErrorObject): string {
  return error.message ?? `fails "${error.keyword}"`;
}

function listOf(values: unknown): string {
  return Array.isArray(values) ? values.map((v) => JSON.stringify(v)).join(', ') : '';
}

/** `anyOf: [{required: [a]}, {required: [b]}]` reads best as "must set a or b". */
function anyOfText(error: ErrorObject): string {
  const branches: unknown = error.schema;
  if (!Array.isArray(branches)) return message(error);
  const names: string[] = [];
  for (const branch of branches as unknown[]) {
    const required = (branch as { required?: unknown }).required;
    if (!Array.isArray(required) || Object.keys(branch as object).length !== 1)
      return message(error);
    names.push(...required.map(String));
  }
  return `must set at least one of ${listOf(names)}`;
}

function isSecretSourceSchema(schema: unknown): boolean {
  if (typeof schema !== 'object' || schema === null) return false;
  const properties = (schema as { properties?: unknown }).properties;
  if (typeof properties !== 'object' || properties === null) return false;
  return Object.keys(properties).sort().join(',') === 'env,file,value';
}
