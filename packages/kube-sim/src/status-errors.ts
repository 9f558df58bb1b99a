/**
 * `kind: Status` bodies exactly as the Kubernetes API server writes them, and the error type the
 * simulator throws internally so every failure path ends in one faithful wire shape.
 */

/** One entry of `details.causes` in a Status (the real server's StatusCause). */
export interface StatusCause {
  reason?: string;
  message: string;
  field?: string;
}

/** The `details` block of a Status. `kind` is the resource plural for most reasons, as upstream. */
export interface StatusDetails {
  name?: string;
  group?: string;
  kind?: string;
  uid?: string;
  causes?: StatusCause[];
  retryAfterSeconds?: number;
}

/** A metav1.Status body. */
export interface KubeStatus {
  kind: 'Status';
  apiVersion: 'v1';
  metadata: Record<string, never>;
  status: 'Failure' | 'Success';
  message?: string;
  reason?: string;
  details?: StatusDetails;
  code: number;
}

/** A failure that the HTTP layer renders as a `kind: Status` body with `status.code`. */
export class SimError extends Error {
  readonly status: KubeStatus;

  constructor(status: KubeStatus) {
    super(status.message ?? status.reason ?? 'error');
    this.name = 'SimError';
    this.status = status;
  }

  /** HTTP status code of this error. */
  get code(): number {
    return this.status.code;
  }
}

/** Identifies a resource in messages: plural, group and (optionally) object name. */
export interface ResourceRef {
  group: string;
  resource: string;
  name?: string;
}

/** Builds a Failure Status; empty `details` are dropped as the real server's omitempty does. */
export function failure(
  code: number,
  reason: string,
  message: string,
  details?: StatusDetails,
): KubeStatus {
  const status: KubeStatus = {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message,
    reason,
    code,
  };
  if (details !== undefined && Object.keys(details).length > 0) status.details = details;
  return status;
}

/** `plural.group` or just `plural` for the core group, as the API server qualifies resources. */
export function qualified(ref: ResourceRef): string {
  return ref.group === '' ? ref.resource : `${ref.resource}.${ref.group}`;
}

function refDetails(ref: ResourceRef): StatusDetails {
  const details: StatusDetails = {};
  if (ref.name !== undefined && ref.name !== '') details.name = ref.name;
  if (ref.group !== '') details.group = ref.group;
  details.kind = ref.resource;
  return details;
}

/** 404 NotFound for a named object: `secrets "x" not found`. */
export function notFound(ref: ResourceRef): SimError {
  const message = `${qualified(ref)} "${ref.name ?? ''}" not found`;
  return new SimError(failure(404, 'NotFound', message, refDetails(ref)));
}

/** 404 for a path the server does not serve at all. */
export function pathNotFound(): SimError {
  return new SimError(
    failure(404, 'NotFound', 'the server could not find the requested resource', {}),
  );
}

/** 409 AlreadyExists on create. */
export function alreadyExists(ref: ResourceRef): SimError {
  const message = `${qualified(ref)} "${ref.name ?? ''}" already exists`;
  return new SimError(failure(409, 'AlreadyExists', message, refDetails(ref)));
}

/** 409 Conflict on a stale resourceVersion, with the real server's wording. */
export function conflict(ref: ResourceRef): SimError {
  const message =
    `Operation cannot be fulfilled on ${qualified(ref)} "${ref.name ?? ''}": ` +
    'the object has been modified; please apply your changes to the latest version and try again';
  return new SimError(failure(409, 'Conflict', message, refDetails(ref)));
}

/** 422 Invalid: `Kind.group "name" is invalid: field: message, ...` with causes listed. */
export function invalid(
  kind: string,
  group: string,
  name: string,
  causes: StatusCause[],
): SimError {
  const qualifiedKind = group === '' ? kind : `${kind}.${group}`;
  const parts = causes.map((c) => (c.field === undefined ? c.message : `${c.field}: ${c.message}`));
  const list = parts.length === 1 ? (parts[0] ?? '') : `[${parts.join(', ')}]`;
  const details: StatusDetails = { name, kind };
  if (group !== '') details.group = group;
  details.causes = causes;
  return new SimError(
    failure(422, 'Invalid', `${qualifiedKind} "${name}" is invalid: ${list}`, details),
  );
}

/** 400 BadRequest with a free-form message. */
export function badRequest(message: string): SimError {
  return new SimError(failure(400, 'BadRequest', message));
}

/** 401 Unauthorized, exactly as the real server answers an unauthenticated request. */
export function unauthorized(): SimError {
  return new SimError(failure(401, 'Unauthorized', 'Unauthorized'));
}

/** Where a forbidden request was aimed, for the RBAC-style message. */
export interface ForbiddenTarget extends ResourceRef {
  user: string;
  verb: string;
  namespace: string;
  subresource?: string;
}

/** 403 Forbidden with the RBAC authorizer's message shape. */
export function forbidden(t: ForbiddenTarget): SimError {
  const subject =
    t.name !== undefined && t.name !== '' ? `${qualified(t)} "${t.name}"` : qualified(t);
  const resource = t.subresource !== undefined ? `${t.resource}/${t.subresource}` : t.resource;
  const scope = t.namespace === '' ? 'at the cluster scope' : `in the namespace "${t.namespace}"`;
  const message =
    `${subject} is forbidden: User "${t.user}" cannot ${t.verb} resource "${resource}" ` +
    `in API group "${t.group}" ${scope}`;
  return new SimError(failure(403, 'Forbidden', message, refDetails(t)));
}

/** 405 MethodNotSupported (reason MethodNotAllowed, as apimachinery's NewMethodNotSupported). */
export function methodNotSupported(): SimError {
  const message = 'the server does not allow this method on the requested resource';
  return new SimError(failure(405, 'MethodNotAllowed', message, {}));
}

/** The media types the real server accepts for PATCH of custom resources. */
export const PATCH_TYPES_MESSAGE =
  'accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml';

/** 415 UnsupportedMediaType. */
export function unsupportedMediaType(contentType: string): SimError {
  const message = `${contentType} is not supported: the body of the request was in an unknown format - ${PATCH_TYPES_MESSAGE}`;
  return new SimError(failure(415, 'UnsupportedMediaType', message));
}

/** 415 for a request body encoding the simulator does not decode (protobuf, CBOR). */
export function unsupportedBodyType(contentType: string): SimError {
  const message = `the body of the request was in an unknown format - accepted media types include: application/json, application/yaml`;
  return new SimError(failure(415, 'UnsupportedMediaType', `${contentType}: ${message}`));
}

/** 410 Gone/Expired as sent inside a watch ERROR event for a compacted resourceVersion. */
export function expired(requested: number, oldest: number): KubeStatus {
  return failure(410, 'Expired', `too old resource version: ${requested} (${oldest})`);
}

/** The reason and default message the real server gives for each HTTP code it answers with. */
const STATUS_BY_CODE: ReadonlyMap<number, [reason: string, message: string]> = new Map([
  [400, ['BadRequest', 'the server rejected our request for an unknown reason']],
  [401, ['Unauthorized', 'Unauthorized']],
  [403, ['Forbidden', 'forbidden']],
  [404, ['NotFound', 'the server could not find the requested resource']],
  [409, ['Conflict', 'the server reported a conflict']],
  [410, ['Gone', 'the resource requested is no longer available']],
  [429, ['TooManyRequests', 'Too many requests, please try again later.']],
  [503, ['ServiceUnavailable', 'the server is currently unable to handle the request']],
  [504, ['Timeout', 'the server was unable to return a response in the time allotted']],
]);

/** Builds the Status the real server uses for an arbitrary HTTP code (used by fault injection). */
export function statusForCode(code: number, message?: string): KubeStatus {
  if (code === 500) {
    const cause = message ?? 'injected fault';
    return failure(500, 'InternalError', `Internal error occurred: ${cause}`, {
      causes: [{ message: cause }],
    });
  }
  const known = STATUS_BY_CODE.get(code);
  if (known === undefined) {
    const reason = code >= 500 ? 'InternalError' : 'BadRequest';
    return failure(code, reason, message ?? `injected error ${code}`);
  }
  const [reason, text] = known;
  const details = code === 429 ? { retryAfterSeconds: 1 } : undefined;
  return failure(code, reason, message ?? text, details);
}

/** A Success Status, as returned by DELETE of most built-in resources. */
export function success(details: StatusDetails): KubeStatus {
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details, code: 200 };
}
