/**
 * The Flux event body: its schema check (schemas/flux-event.schema.json) and the one thing we
 * keep of it, a HintKey. Revision, message and metadata are never trusted for decisions.
 */
import { readFileSync } from 'node:fs';
import { Ajv } from 'ajv';
import type { ErrorObject, ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { HintKey } from '../hints/types.js';
import { packagePath } from '../paths.js';

/** corev1.ObjectReference as Flux sends it in `involvedObject`. */
export interface InvolvedObject {
  kind: string;
  name: string;
  namespace: string;
  apiVersion?: string;
  uid?: string;
  resourceVersion?: string;
  fieldPath?: string;
}

/** A Flux event body after schema validation (unknown top-level fields are allowed). */
export interface FluxEvent {
  involvedObject: InvolvedObject;
  severity?: 'info' | 'error' | 'trace';
  timestamp?: string;
  message?: string;
  reason?: string;
  metadata?: Record<string, string>;
  reportingController?: string;
  reportingInstance?: string;
}

/** API group of each application kind the gateway verifies. */
export const APP_KIND_GROUPS: ReadonlyMap<string, string> = new Map([
  ['HelmRelease', 'helm.toolkit.fluxcd.io'],
  ['Kustomization', 'kustomize.toolkit.fluxcd.io'],
]);

const MAX_DETAIL_LENGTH = 200;

function compile(): ValidateFunction<FluxEvent> {
  // ajv-formats is CommonJS: under NodeNext its default import is the module object.
  const addFormats = addFormatsModule.default;
  const ajv = new Ajv({ allErrors: false, strict: true });
  addFormats(ajv, ['date-time']);
  const schema = JSON.parse(
    readFileSync(packagePath('schemas', 'flux-event.schema.json'), 'utf8'),
  ) as object;
  return ajv.compile<FluxEvent>(schema);
}

let validator: ValidateFunction<FluxEvent> | undefined;

function describe(error: ErrorObject | undefined): string {
  if (error === undefined) return 'Invalid body.';
  const path = error.instancePath === '' ? '(body)' : error.instancePath;
  return `Invalid body: ${path} ${error.message ?? 'is invalid'}.`.slice(0, MAX_DETAIL_LENGTH);
}

/** Validates a parsed body: the event, or a short message naming the first offending field. */
export function validateFluxEvent(
  body: unknown,
): { ok: true; event: FluxEvent } | { ok: false; message: string } {
  validator ??= compile();
  if (validator(body)) return { ok: true, event: body };
  return { ok: false, message: describe(validator.errors?.[0]) };
}

/**
 * The hint for an event from `cluster`: only HelmRelease and Kustomization produce one, and
 * only when involvedObject.apiVersion (if present) names the kind's own group.
 */
export function hintKeyFor(cluster: string, object: InvolvedObject): HintKey | undefined {
  // A Map, not an object literal: kinds like `toString` must not hit Object.prototype.
  const group = APP_KIND_GROUPS.get(object.kind);
  if (group === undefined) return undefined;
  if (object.apiVersion !== undefined) {
    const slash = object.apiVersion.indexOf('/');
    const claimed = slash === -1 ? '' : object.apiVersion.slice(0, slash);
    if (claimed !== group) return undefined;
  }
  return { cluster, group, kind: object.kind, namespace: object.namespace, name: object.name };
}

/** The event's revision for debug logs only: `revision` or any `<prefix>/revision` key. */
export function loggedRevision(event: FluxEvent): string | undefined {
  const metadata = event.metadata ?? {};
  const key = Object.keys(metadata).find(
    (name) => name === 'revision' || name.endsWith('/revision'),
  );
  return key === undefined ? undefined : metadata[key];
}
