/**
 * The Flux event body (declared in src/shapes, generated into schemas/flux-event.schema.json,
 * checked by fastify) and
 * the one thing we keep of it, an ObjectKey. Revision, message and metadata are never trusted
 * for decisions.
 */
import type { Static } from 'typebox';
import { parseApiVersion } from '../pipeline/api-version.js';
import { fluxAppKind } from '../pipeline/flux-kinds.js';
import type { ObjectKey } from '../pipeline/object-key.js';
import type { FluxEventSchema, InvolvedObjectSchema } from '../shapes/flux-event.js';

/** corev1.ObjectReference as Flux sends it in `involvedObject`. */
export type InvolvedObject = Static<typeof InvolvedObjectSchema>;

/** A Flux event body after schema validation (unknown top-level fields are allowed). */
export type FluxEvent = Static<typeof FluxEventSchema>;

/**
 * The object an event from `cluster` is about: only HelmRelease and Kustomization count, and
 * only when involvedObject.apiVersion (if present) names the kind's own group.
 */
export function objectKeyFor(cluster: string, object: InvolvedObject): ObjectKey | undefined {
  const app = fluxAppKind(object.kind);
  if (app === undefined) return undefined;
  if (object.apiVersion !== undefined && parseApiVersion(object.apiVersion).group !== app.group) {
    return undefined;
  }
  const { kind, namespace, name } = object;
  return { cluster, group: app.group, kind, namespace, name };
}

/** The event's revision for debug logs only: `revision` or any `<prefix>/revision` key. */
export function loggedRevision(event: FluxEvent): string | undefined {
  const metadata = event.metadata ?? {};
  const key = Object.keys(metadata).find(
    (name) => name === 'revision' || name.endsWith('/revision'),
  );
  return key === undefined ? undefined : metadata[key];
}
