/**
 * Turns a request's credential into an Identity bound to what it may speak for. Every
 * function answers a Checked result: the Identity, or a Refusal naming the reason, which the
 * HTTP layer logs for the operator and answers with one indistinguishable 401.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { ClusterConfig, JwtConfig } from '../config/gateway-config.js';
import type { Identity } from './identity.js';
import { checkSignature, verifySignature, type SignatureCheck } from './hmac.js';
import { verifyJwt } from './jwt.js';
import type { JwtKeys } from './jwt.js';
import {
  factText,
  refuse,
  verified,
  withFacts,
  type Checked,
  type Refusal,
  type RefusalReason,
} from './refusal.js';

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
 * jwtSubjects, pipelines = the `pipelines` claim. Refused without a token, without JWT config,
 * or when the token does not verify.
 */
export async function authenticateBearer(
  headers: IncomingHttpHeaders,
  settings: AuthSettings,
): Promise<Checked<Identity>> {
  const token = bearerToken(headers);
  if (token === undefined) return refuse('MissingToken');
  if (settings.jwt === undefined || settings.jwtKeys === undefined) return refuse('NotConfigured');
  const checked = await verifyJwt(token, settings.jwtKeys, settings.jwt);
  if (!checked.ok) return checked;
  const payload = checked.value;
  const subject: unknown = payload.sub;
  // jose checks that `sub` is present, not that it is a string: a signed `"sub": null` or
  // `"sub": 42` is no subject either (and `null.length` was a 500).
  if (typeof subject !== 'string' || subject.length === 0)
    return refuse('MissingClaim', { claim: 'sub' });
  return verified({
    kind: 'jwt',
    subject,
    scopes: {
      clusters: settings.clusters
        .filter((cluster) => cluster.jwtSubjects.includes(subject))
        .map((cluster) => cluster.name),
      pipelines: pipelineScopes(payload.pipelines),
    },
  });
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
): Promise<Checked<Identity>> {
  const config = settings.clusters.find((candidate) => candidate.name === cluster);
  const signature = header(headers, 'x-signature');
  const named = { cluster: factText(cluster) };
  if (signature !== undefined || bearerToken(headers) === undefined) {
    const check = checkSignature(body, signature, config?.hmacKeys ?? []);
    if (check === 'valid' && config !== undefined) {
      return verified({
        kind: 'hmac',
        subject: `cluster:${config.name}`,
        scopes: { clusters: [config.name], pipelines: [] },
      });
    }
    return withFacts(signatureRefusal(check, config, body, signature, settings), named);
  }
  const checked = await authenticateBearer(headers, settings);
  if (!checked.ok) return withFacts(checked, named);
  const identity = checked.value;
  const subject = factText(identity.subject);
  if (config === undefined) return refuse('UnknownCluster', { ...named, subject });
  return identity.scopes.clusters.includes(config.name)
    ? checked
    : refuse('SubjectNotBound', { ...named, subject });
}

/**
 * Why an event's X-Signature failed. The URL's cluster comes first (an unknown one, or one
 * without keys), then the header; a wrong signature may be diagnosed as another cluster's key.
 */
function signatureRefusal(
  check: SignatureCheck,
  config: ClusterConfig | undefined,
  body: Buffer,
  signature: string | undefined,
  settings: AuthSettings,
): Refusal {
  let reason: RefusalReason = SIGNATURE_REASONS[check];
  if (config === undefined) reason = 'UnknownCluster';
  else if (config.hmacKeys.length === 0 && check !== 'missing') reason = 'NoKey';
  // Only a well-formed signature can be another cluster's: nothing else is worth the HMACs.
  if (check !== 'mismatch' || reason === 'NoKey') return refuse(reason);
  const others = settings.clusters.filter((candidate) => candidate !== config);
  return refuse(reason, {}, () => keyOwnerRefusal(reason, body, signature, others));
}

const SIGNATURE_REASONS: Readonly<Record<SignatureCheck, RefusalReason>> = {
  // Never met: a signature is only valid with a key, and only a configured cluster has one.
  valid: 'BadSignature',
  missing: 'MissingSignature',
  malformed: 'Malformed',
  mismatch: 'BadSignature',
};

/**
 * The diagnostic behind a wrong event signature, run only after the real check failed: when
 * the signature verifies with a key of another configured cluster, KeyOfAnotherCluster naming
 * it (an unknown URL cluster stays UnknownCluster, with the owner added); else `reason` alone.
 */
function keyOwnerRefusal(
  reason: RefusalReason,
  body: Buffer,
  signature: string | undefined,
  others: readonly ClusterConfig[],
): Refusal {
  const owner = others.find(
    (other) => other.hmacKeys.length > 0 && verifySignature(body, signature, other.hmacKeys),
  );
  if (owner === undefined) return refuse(reason);
  return refuse(reason === 'UnknownCluster' ? reason : 'KeyOfAnotherCluster', {
    keyOf: owner.name,
  });
}

/**
 * Authenticates a legacy pipeline-controller webhook call: X-Signature over the body with the
 * Pipeline's `hmac-key` (refused as NoKey when there is none, after the same work).
 */
export function authenticateLegacy(
  headers: IncomingHttpHeaders,
  body: Buffer,
  pipeline: { namespace: string; name: string },
  key: Buffer | undefined,
): Checked<Identity> {
  const check = checkSignature(
    body,
    header(headers, 'x-signature'),
    key === undefined ? [] : [key],
  );
  const ref = `${pipeline.namespace}/${pipeline.name}`;
  if (check !== 'valid') {
    const reason = key === undefined && check !== 'missing' ? 'NoKey' : SIGNATURE_REASONS[check];
    return refuse(reason, { pipeline: factText(ref) });
  }
  return verified({
    kind: 'legacy-hmac',
    subject: `pipeline:${ref}`,
    scopes: { clusters: [], pipelines: [ref] },
  });
}

/** True when one of the identity's pipeline patterns (`ns/name`, `ns/*`, `*`) covers the pipeline. */
export function coversPipeline(identity: Identity, namespace: string, name: string): boolean {
  return identity.scopes.pipelines.some(
    (pattern) =>
      pattern === '*' || pattern === `${namespace}/*` || pattern === `${namespace}/${name}`,
  );
}
