/**
 * Turns a request's credential into an Identity bound to what it may speak for. Every
 * function answers `undefined` for any failure, with no reason: the HTTP layer turns that into
 * one indistinguishable 401.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { ClusterConfig, JwtConfig } from '../config/gateway-config.js';
import type { Identity } from './identity.js';
import { verifySignature } from './hmac.js';
import { verifyJwt } from './jwt.js';
import type { JwtKeys } from './jwt.js';

/** What authentication needs from the configuration. */
export interface AuthSettings {
  clusters: readonly ClusterConfig[];
  jwt: JwtConfig | undefined;
  jwtKeys: JwtKeys | undefined;
}

/** Most pipeline patterns one token may carry; more is treated as a malformed claim. */
const MAX_PIPELINE_SCOPES = 256;
const MAX_SCOPE_LENGTH = 64 + 1 + 253;

function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return typeof value === 'string' ? value : undefined;
}

/** The token of an `Authorization: Bearer <token>` header, else undefined. */
export function bearerToken(headers: IncomingHttpHeaders): string | undefined {
  const match = /^Bearer[ ]+([A-Za-z0-9._~+/-]+=*)$/i.exec(header(headers, 'authorization') ?? '');
  return match?.[1];
}

function pipelineScopes(claim: unknown): string[] {
  if (!Array.isArray(claim) || claim.length > MAX_PIPELINE_SCOPES) return [];
  return claim.filter(
    (entry): entry is string => typeof entry === 'string' && entry.length <= MAX_SCOPE_LENGTH,
  );
}

/**
 * The Identity of a valid bearer JWT: subject = `sub`, clusters = those listing `sub` in
 * jwtSubjects, pipelines = the `pipelines` claim. Undefined without JWT config or on failure.
 */
export async function authenticateBearer(
  headers: IncomingHttpHeaders,
  settings: AuthSettings,
): Promise<Identity | undefined> {
  const token = bearerToken(headers);
  if (token === undefined || settings.jwt === undefined || settings.jwtKeys === undefined) {
    return undefined;
  }
  const payload = await verifyJwt(token, settings.jwtKeys, settings.jwt);
  const subject = payload?.sub;
  if (payload === undefined || subject === undefined || subject.length === 0) return undefined;
  return {
    kind: 'jwt',
    subject,
    scopes: {
      clusters: settings.clusters
        .filter((cluster) => cluster.jwtSubjects.includes(subject))
        .map((cluster) => cluster.name),
      pipelines: pipelineScopes(payload.pipelines),
    },
  };
}

/**
 * Authenticates a Flux event for `cluster`: X-Signature (HMAC with that cluster's keys) when
 * present, else a bearer JWT whose subject is bound to the cluster. An unknown cluster or a
 * missing credential still costs an HMAC computation against a dummy key.
 */
export async function authenticateClusterEvent(
  headers: IncomingHttpHeaders,
  body: Buffer,
  cluster: string,
  settings: AuthSettings,
): Promise<Identity | undefined> {
  const config = settings.clusters.find((candidate) => candidate.name === cluster);
  const signature = header(headers, 'x-signature');
  if (signature !== undefined || bearerToken(headers) === undefined) {
    const valid = verifySignature(body, signature, config?.hmacKeys ?? []);
    if (!valid || config === undefined) return undefined;
    return {
      kind: 'hmac',
      subject: `cluster:${config.name}`,
      scopes: { clusters: [config.name], pipelines: [] },
    };
  }
  const identity = await authenticateBearer(headers, settings);
  if (identity === undefined || config === undefined) return undefined;
  return identity.scopes.clusters.includes(config.name) ? identity : undefined;
}

/**
 * Authenticates a legacy pipeline-controller webhook call: X-Signature over the body with the
 * Pipeline's `hmac-key` (undefined when there is none, which always fails).
 */
export function authenticateLegacy(
  headers: IncomingHttpHeaders,
  body: Buffer,
  pipeline: { namespace: string; name: string },
  key: Buffer | undefined,
): Identity | undefined {
  const valid = verifySignature(
    body,
    header(headers, 'x-signature'),
    key === undefined ? [] : [key],
  );
  if (!valid) return undefined;
  const ref = `${pipeline.namespace}/${pipeline.name}`;
  return {
    kind: 'legacy-hmac',
    subject: `pipeline:${ref}`,
    scopes: { clusters: [], pipelines: [ref] },
  };
}

/** True when one of the identity's pipeline patterns (`ns/name`, `ns/*`, `*`) covers the pipeline. */
export function coversPipeline(identity: Identity, namespace: string, name: string): boolean {
  return identity.scopes.pipelines.some(
    (pattern) =>
      pattern === '*' || pattern === `${namespace}/*` || pattern === `${namespace}/${name}`,
  );
}
