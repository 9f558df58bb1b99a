/**
 * Signed approval statements: a compact JWS (a JWT of type `promotion-approval+jwt`) that one
 * approver signs with their own key, binding pipeline, environment, revision, decision,
 * issue and expiry times and a unique id. The gateway stores the statement as received, so
 * anyone holding the approvers' public keys can re-verify the audit trail without trusting it.
 */
import type { KeyObject as NodeKeyObject } from 'node:crypto';
import { SignJWT, jwtVerify, type CryptoKey, type JWTPayload, type KeyObject } from 'jose';
import {
  APPROVAL_ALGORITHMS,
  approvalAlgorithm,
  importPublicKey,
  type ApprovalAlgorithm,
} from '../config/keys.js';
import {
  factText,
  joseReason,
  refuse,
  verified,
  withFacts,
  type Checked,
  type Refusal,
} from './refusal.js';
import type { AuthorizationDecision } from './identity.js';

/** The JWS `typ` of a statement: no other JWT signed with the same key can pass for one. */
export const STATEMENT_TYPE = 'promotion-approval+jwt';
/** The algorithms an approver may sign with; each key verifies exactly one of them. */
export const STATEMENT_ALGORITHMS = APPROVAL_ALGORITHMS;
const MAX_STATEMENT_LENGTH = 8 * 1024;
const MAX_COMMENT_LENGTH = 1024;
const MAX_REVISION_LENGTH = 256;

/** What a statement says. `pipeline` is `namespace/name`; times are seconds since the epoch. */
export interface StatementClaims {
  sub: string;
  pipeline: string;
  environment: string;
  revision: string;
  decision: AuthorizationDecision;
  comment?: string;
  /** The digest of the previewed change the approver saw (docs/approvals.md). */
  previewDigest?: string;
  iat: number;
  exp: number;
  jti: string;
}

/** A preview's digest as a statement may carry it. */
const PREVIEW_DIGEST = /^sha256:[0-9a-f]{64}$/;

/** The limits a statement must keep. */
export interface StatementPolicy {
  maxLifetimeSeconds: number;
  clockToleranceSeconds: number;
}

/** An approver's name and verification keys, as text (PEM SPKI or JWK JSON). */
export interface StatementSigner {
  name: string;
  publicKeys: readonly string[];
}

function isText(value: unknown, max: number): value is string {
  return typeof value === 'string' && value.length > 0 && value.length <= max;
}

/** The claims when the payload has exactly the right shape, else undefined. */
function claimsOf(payload: Record<string, unknown>): StatementClaims | undefined {
  const { sub, pipeline, environment, revision, decision, comment, iat, exp, jti } = payload;
  const { previewDigest } = payload;
  if (!isText(sub, 253) || !isText(pipeline, 317) || !isText(environment, 253)) return undefined;
  if (!isText(revision, MAX_REVISION_LENGTH) || !isText(jti, 256)) return undefined;
  if (decision !== 'approve' && decision !== 'reject' && decision !== 'break-glass')
    return undefined;
  if (comment !== undefined && !isText(comment, MAX_COMMENT_LENGTH)) return undefined;
  if (
    previewDigest !== undefined &&
    !(isText(previewDigest, 71) && PREVIEW_DIGEST.test(previewDigest))
  )
    return undefined;
  if (typeof iat !== 'number' || typeof exp !== 'number') return undefined;
  return {
    sub,
    pipeline,
    environment,
    revision,
    decision,
    ...(comment === undefined ? {} : { comment }),
    ...(previewDigest === undefined ? {} : { previewDigest }),
    iat,
    exp,
    jti,
  };
}

/** The approval statement's form: its `typ` and the parser of its claims. */
export const APPROVAL_STATEMENT_FORM: StatementForm<StatementClaims> = {
  typ: STATEMENT_TYPE,
  claims: claimsOf,
};

/**
 * The claims of `statement` when it is a valid statement by `signer` at `now` (ms): signed by
 * one of their keys with that key's algorithm (EdDSA for Ed25519, ES256 for P-256), of the
 * statement type, `sub` naming them, `iat` not in the future, `exp` not past and at most the
 * policy's lifetime after `iat`. Otherwise the refusal saying why, never a rejection: the
 * caller logs it and answers one indistinguishable 401.
 */
export function checkStatement(
  statement: string,
  signer: StatementSigner,
  policy: StatementPolicy,
  now: number,
): Promise<Checked<StatementClaims>> {
  return checkSigned(statement, signer, policy, now, APPROVAL_STATEMENT_FORM);
}

/** What every kind of signed statement claims besides its own fields. */
export interface SignedClaims {
  sub: string;
  iat: number;
  exp: number;
  jti: string;
}

/**
 * A kind of signed statement: its JWS `typ` (so no statement of one kind passes for another)
 * and the parser of its claims (undefined unless the payload has exactly its shape).
 */
export interface StatementForm<C extends SignedClaims> {
  typ: string;
  claims: (payload: Record<string, unknown>) => C | undefined;
}

/** checkStatement for any statement form (halt statements: src/auth/halt-statement.ts). */
export async function checkSigned<C extends SignedClaims>(
  statement: string,
  signer: StatementSigner,
  policy: StatementPolicy,
  now: number,
  form: StatementForm<C>,
): Promise<Checked<C>> {
  if (statement.length === 0 || statement.length > MAX_STATEMENT_LENGTH) return refuse('Malformed');
  // No key at all is a statement nobody could have signed: a bad signature.
  let best: Refusal = refuse('BadSignature');
  for (const text of signer.publicKeys) {
    const key = approvalKey(text);
    const checked = key === undefined ? best : await verifyWith(statement, key, policy, now, form);
    if (!checked.ok) {
      if (progress(checked) > progress(best)) best = checked;
      continue;
    }
    const claims = checked.value;
    if (claims.sub !== signer.name)
      return refuse('WrongSubject', { subject: factText(claims.sub) });
    return claims.exp - claims.iat <= policy.maxLifetimeSeconds
      ? checked
      : refuse('LifetimeTooLong');
  }
  return withFacts(best, { kid: factText(signer.name) });
}

/**
 * How far a key got with the statement: refused for its algorithm, then for its signature, then
 * (the signature held) for its claims. With several keys, the furthest tells the cause.
 */
function progress(refusal: Refusal): number {
  if (refusal.reason === 'Malformed' && refusal.facts.part === CLAIMS_PART) return 2;
  if (refusal.reason === 'Malformed' || refusal.reason === 'BadAlgorithm') return 0;
  return refusal.reason === 'BadSignature' ? 1 : 2;
}

/** The fact naming a signed payload whose claims have not the statement's shape. */
const CLAIMS_PART = 'claims';

/** checkStatement's claims, or undefined for any refusal (the offline verifier's use). */
export async function verifyStatement(
  statement: string,
  signer: StatementSigner,
  policy: StatementPolicy,
  now: number,
): Promise<StatementClaims | undefined> {
  const checked = await checkStatement(statement, signer, policy, now);
  return checked.ok ? checked.value : undefined;
}

/** An approver key and the one algorithm it verifies. */
interface ApprovalKey {
  key: NodeKeyObject;
  algorithm: ApprovalAlgorithm;
}

/**
 * The key in `text`, or undefined when it is none an approval may be signed with. The
 * configuration refuses such keys at load; a direct caller (the offline verifier, a test) may
 * still pass one, and it verifies nothing.
 */
function approvalKey(text: string): ApprovalKey | undefined {
  let key: NodeKeyObject;
  try {
    key = importPublicKey(text);
  } catch {
    return undefined; // importPublicKey throws only for text that holds no public key
  }
  const algorithm = approvalAlgorithm(key);
  return algorithm === undefined ? undefined : { key, algorithm };
}

async function verifyWith<C extends SignedClaims>(
  statement: string,
  { key, algorithm }: ApprovalKey,
  policy: StatementPolicy,
  now: number,
  form: StatementForm<C>,
): Promise<Checked<C>> {
  let payload: JWTPayload;
  try {
    ({ payload } = await jwtVerify(statement, key, {
      // The key's own algorithm only: any other `alg` is refused before the key is touched.
      algorithms: [algorithm],
      typ: form.typ,
      requiredClaims: ['exp', 'iat', 'jti', 'sub'],
      maxTokenAge: policy.maxLifetimeSeconds,
      clockTolerance: policy.clockToleranceSeconds,
      currentDate: new Date(now),
    }));
  } catch (error) {
    // The statement is untrusted input: whatever jose or WebCrypto throws over it (a JOSEError,
    // a TypeError, a DOMException) means "not verified". Only this call is guarded, so a fault
    // in our own checks below still surfaces.
    const { reason, claim } = joseReason(error);
    return refuse(reason, { claim });
  }
  const claims = form.claims(payload);
  // The signature held: a wrong shape is the signer's mistake, told apart from a bad signature.
  return claims === undefined ? refuse('Malformed', { part: CLAIMS_PART }) : verified(claims);
}

/** The `kid` an unverified statement names (its signer), or undefined when unreadable. */
export function statementSigner(statement: string): string | undefined {
  const [header] = statement.split('.', 1);
  if (header === undefined || header.length > 2048) return undefined;
  try {
    const parsed = JSON.parse(Buffer.from(header, 'base64url').toString('utf8')) as unknown;
    const kid = (parsed as { kid?: unknown } | null)?.kid;
    return typeof kid === 'string' && kid.length > 0 ? kid : undefined;
  } catch {
    return undefined;
  }
}

/** Signs `claims` as `claims.sub` with `privateKey` (EdDSA or ES256): the compact statement. */
export function signStatement(
  claims: StatementClaims,
  privateKey: CryptoKey | KeyObject,
  alg: (typeof STATEMENT_ALGORITHMS)[number],
): Promise<string> {
  return signTyped(STATEMENT_TYPE, claims, privateKey, alg);
}

/**
 * Signs `claims` as `claims.sub` with `privateKey` (EdDSA or ES256) under the JWS `typ` of its
 * kind of statement: the compact statement every kind's signer returns.
 */
export function signTyped(
  typ: string,
  claims: SignedClaims & object,
  privateKey: CryptoKey | KeyObject,
  alg: (typeof STATEMENT_ALGORITHMS)[number],
): Promise<string> {
  const { iat, exp, jti, sub, ...rest } = claims;
  return new SignJWT({ ...rest })
    .setProtectedHeader({ alg, typ, kid: sub })
    .setSubject(sub)
    .setIssuedAt(iat)
    .setExpirationTime(exp)
    .setJti(jti)
    .sign(privateKey);
}
