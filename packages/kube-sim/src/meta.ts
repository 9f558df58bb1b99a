/**
 * Small helpers over object metadata and the server-set fields (uid, names, generation)
 * shared by the write paths.
 */
import type { ResourceType, SimObject } from './resources.js';
import { apiVersionOf } from './resources.js';

/** The metadata record of an object (empty when absent). */
export function metaOf(obj: SimObject): Record<string, unknown> {
  const m = obj.metadata;
  return typeof m === 'object' && m !== null && !Array.isArray(m)
    ? (m as Record<string, unknown>)
    : {};
}

/** A string metadata field, or '' when absent. */
export function metaString(obj: SimObject, key: string): string {
  const v = metaOf(obj)[key];
  return typeof v === 'string' ? v : '';
}

/** True for a plain JSON object. */
export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The object as served at `type`'s version: apiVersion/kind rewritten (no conversion needed). */
export function asServed(type: ResourceType, obj: SimObject): SimObject {
  return { ...obj, apiVersion: apiVersionOf(type), kind: type.kind };
}

const SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

/** The real server's message for a bad name, or undefined when the name is valid. */
export function nameProblem(name: string, dnsLabel: boolean): string | undefined {
  if (dnsLabel) {
    if (name.length <= 63 && LABEL.test(name)) return undefined;
    return (
      `Invalid value: "${name}": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', ` +
      "and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"
    );
  }
  if (name.length <= 253 && SUBDOMAIN.test(name)) return undefined;
  return (
    `Invalid value: "${name}": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', ` +
    "and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is " +
    "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
  );
}

const NAME_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';

/** generateName's suffix: five characters from the real server's alphabet. */
export function randomSuffix(random: () => number): string {
  let out = '';
  for (let i = 0; i < 5; i++)
    out += NAME_ALPHABET[Math.floor(random() * NAME_ALPHABET.length)] ?? 'x';
  return out;
}

/** A v4-shaped UUID from the injected random source. */
export function uuid(random: () => number): string {
  const hex = (n: number): string =>
    Array.from({ length: n }, () => Math.floor(random() * 16).toString(16)).join('');
  return `${hex(8)}-${hex(4)}-4${hex(3)}-${'89ab'[Math.floor(random() * 4)] ?? '8'}${hex(3)}-${hex(12)}`;
}

/** The fields whose change bumps metadata.generation: everything but metadata (and status when split). */
export function specView(obj: SimObject, statusSplit: boolean): string {
  const rest: Record<string, unknown> = { ...obj };
  delete rest.metadata;
  delete rest.apiVersion;
  delete rest.kind;
  if (statusSplit) delete rest.status;
  return stableJson(rest);
}

/** JSON with sorted keys, for equality checks that ignore key order. */
export function stableJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(stableJson).join(',')}]`;
  if (isRecord(v)) {
    const keys = Object.keys(v).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${stableJson(v[k])}`).join(',')}}`;
  }
  // JSON.stringify yields undefined for these despite its declared return type.
  return v === undefined || typeof v === 'function' || typeof v === 'symbol'
    ? 'null'
    : JSON.stringify(v);
}

/** Equality of two stored objects ignoring resourceVersion (a no-op write keeps the version). */
export function sameObject(a: SimObject, b: SimObject): boolean {
  const strip = (o: SimObject): SimObject => {
    const m = { ...metaOf(o) };
    delete m.resourceVersion;
    return { ...o, metadata: m };
  };
  return stableJson(strip(a)) === stableJson(strip(b));
}
