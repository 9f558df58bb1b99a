/**
 * Translation of schema failures into the real server's StatusCause vocabulary
 * (FieldValueRequired, FieldValueInvalid, ...) with field paths like `spec.values[0].name`.
 */
import type { ErrorObject } from 'ajv';
import type { SimObject } from './resources.js';
import type { StatusCause } from './status-errors.js';

/** Renders path segments as a Kubernetes field path: `spec.items[2].name`. */
export function fieldPathOf(segments: (string | number)[]): string {
  let out = '';
  for (const s of segments) {
    if (typeof s === 'number') out += `[${s}]`;
    else out += out === '' ? s : `.${s}`;
  }
  return out;
}

function segmentsOf(instancePath: string, root: unknown): (string | number)[] {
  const raw = instancePath === '' ? [] : instancePath.slice(1).split('/');
  const segments: (string | number)[] = [];
  let node = root;
  for (const part of raw) {
    const key = part.replace(/~1/g, '/').replace(/~0/g, '~');
    if (Array.isArray(node) && /^\d+$/.test(key)) {
      segments.push(Number(key));
      node = node[Number(key)];
    } else {
      segments.push(key);
      node =
        typeof node === 'object' && node !== null
          ? (node as Record<string, unknown>)[key]
          : undefined;
    }
  }
  return segments;
}

function valueAt(root: unknown, segments: (string | number)[]): unknown {
  let node = root;
  for (const s of segments) {
    if (typeof node !== 'object' || node === null) return undefined;
    node = (node as Record<string | number, unknown>)[s];
  }
  return node;
}

function typeName(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v;
}

function jsonOrNull(v: unknown): string {
  // JSON.stringify yields undefined for these despite its declared return type.
  return v === undefined || typeof v === 'function' || typeof v === 'symbol'
    ? 'null'
    : JSON.stringify(v);
}

function show(v: unknown): string {
  return typeof v === 'string' ? JSON.stringify(v) : jsonOrNull(v);
}

function causeFor(e: ErrorObject, root: SimObject): StatusCause {
  const segments = segmentsOf(e.instancePath, root);
  const value = valueAt(root, segments);
  const field = fieldPathOf(segments);
  const params = e.params as Record<string, unknown>;
  const num = (k: string): string => String(params[k]);
  switch (e.keyword) {
    case 'required': {
      const missing = String(params.missingProperty);
      return {
        reason: 'FieldValueRequired',
        message: 'Required value',
        field: fieldPathOf([...segments, missing]),
      };
    }
    case 'type': {
      const actual = typeName(value);
      const message = `Invalid value: "${actual}": ${field} in body must be of type ${num('type')}: "${actual}"`;
      return { reason: 'FieldValueTypeInvalid', message, field };
    }
    case 'enum': {
      const allowed = Array.isArray(params.allowedValues)
        ? params.allowedValues.map(show).join(', ')
        : '';
      return {
        reason: 'FieldValueNotSupported',
        message: `Unsupported value: ${show(value)}: supported values: ${allowed}`,
        field,
      };
    }
    case 'pattern':
      return {
        reason: 'FieldValueInvalid',
        message: `Invalid value: ${show(value)}: ${field} in body should match '${num('pattern')}'`,
        field,
      };
    case 'format':
      return {
        reason: 'FieldValueInvalid',
        message: `Invalid value: ${show(value)}: ${field} in body must be of type ${num('format')}: ${show(value)}`,
        field,
      };
    case 'maxLength':
      return {
        reason: 'FieldValueTooLong',
        message: `Too long: may not be longer than ${num('limit')}`,
        field,
      };
    case 'maxItems':
      return {
        reason: 'FieldValueTooMany',
        message: `Too many: ${Array.isArray(value) ? value.length : 0}: must have at most ${num('limit')} items`,
        field,
      };
    case 'minLength':
      return {
        reason: 'FieldValueInvalid',
        message: `Invalid value: ${show(value)}: ${field} in body should be at least ${num('limit')} chars long`,
        field,
      };
    case 'minimum':
      return {
        reason: 'FieldValueInvalid',
        message: `Invalid value: ${show(value)}: ${field} in body should be greater than or equal to ${num('limit')}`,
        field,
      };
    case 'maximum':
      return {
        reason: 'FieldValueInvalid',
        message: `Invalid value: ${show(value)}: ${field} in body should be less than or equal to ${num('limit')}`,
        field,
      };
    default:
      return {
        reason: 'FieldValueInvalid',
        message: `Invalid value: ${show(value)}: ${field} in body ${e.message ?? 'is invalid'}`,
        field,
      };
  }
}

/**
 * Status causes for ajv errors against `root`. Errors inside a failed anyOf/oneOf are folded
 * into that one failure, since the real server reports the combinator, not each branch.
 */
export function causesFromAjv(errors: ErrorObject[], root: SimObject): StatusCause[] {
  const combinators = errors.filter((e) => e.keyword === 'anyOf' || e.keyword === 'oneOf');
  const kept = errors.filter(
    (e) => !combinators.some((c) => c !== e && e.schemaPath.startsWith(`${c.schemaPath}/`)),
  );
  const seen = new Set<string>();
  const out: StatusCause[] = [];
  for (const e of kept) {
    const cause = causeFor(e, root);
    const key = `${cause.field ?? ''}|${cause.message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(cause);
  }
  return out;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The checks the real server makes on a CRD's own shape that matter for serving it. */
export function validateCrdShape(crd: SimObject, name: string): StatusCause[] {
  const causes: StatusCause[] = [];
  const required = (field: string): void => {
    causes.push({ reason: 'FieldValueRequired', message: 'Required value', field });
  };
  const spec = isRecord(crd.spec) ? crd.spec : undefined;
  if (spec === undefined) {
    required('spec');
    return causes;
  }
  const names = isRecord(spec.names) ? spec.names : {};
  if (typeof spec.group !== 'string' || spec.group === '') required('spec.group');
  if (typeof names.plural !== 'string' || names.plural === '') required('spec.names.plural');
  if (typeof names.kind !== 'string' || names.kind === '') required('spec.names.kind');
  if (spec.scope !== 'Namespaced' && spec.scope !== 'Cluster') {
    causes.push({
      reason: 'FieldValueNotSupported',
      message: `Unsupported value: ${JSON.stringify(spec.scope ?? '')}: supported values: "Cluster", "Namespaced"`,
      field: 'spec.scope',
    });
  }
  const versions = Array.isArray(spec.versions) ? spec.versions : [];
  if (versions.length === 0) required('spec.versions');
  if (versions.filter((v) => isRecord(v) && v.storage === true).length !== 1) {
    causes.push({
      reason: 'FieldValueInvalid',
      message: 'Invalid value: must have exactly one version marked as storage version',
      field: 'spec.versions',
    });
  }
  const expected = `${String(names.plural)}.${String(spec.group)}`;
  if (causes.length === 0 && name !== expected) {
    causes.push({
      reason: 'FieldValueInvalid',
      message: `Invalid value: "${name}": must be spec.names.plural+"."+spec.group`,
      field: 'metadata.name',
    });
  }
  return causes;
}
