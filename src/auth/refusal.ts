/**
 * Why a credential was refused. Every verifier answers a typed result instead of a bare
 * undefined: the caller still gets one indistinguishable 401, but the operator's log line and
 * the refusals metric get the reason (docs/operations.md, "Why was I refused?"). A refusal
 * carries facts that are public by nature (cluster names, `kid`, `alg`, issuer, subject, the
 * claim at fault), never a credential, signature, token or key.
 */
import { decodeJwt, decodeProtectedHeader, errors } from 'jose';

/** Every reason a credential can be refused for; each is a row of docs/operations.md. */
export const REFUSAL_REASONS = [
  'MissingSignature',
  'MissingToken',
  'Malformed',
  'BadSignature',
  'KeyOfAnotherCluster',
  'UnknownCluster',
  'NoKey',
  'NotConfigured',
  'SubjectNotBound',
  'UnknownIssuer',
  'UnknownKey',
  'KeysUnavailable',
  'BadAlgorithm',
  'Expired',
  'NotYetValid',
  'TooOld',
  'LifetimeTooLong',
  'WrongAudience',
  'WrongIssuer',
  'WrongType',
  'MissingJti',
  'MissingClaim',
  'UnknownApprover',
  'WrongSubject',
  'StatementForAnotherTarget',
] as const;

/** One reason of REFUSAL_REASONS. */
export type RefusalReason = (typeof REFUSAL_REASONS)[number];

/** Public facts about a refused credential, as short text (see factText). */
export type RefusalFacts = Readonly<Record<string, string>>;

/** A refused credential: the reason and what may be logged about it. */
export interface Refusal {
  readonly ok: false;
  readonly reason: RefusalReason;
  readonly facts: RefusalFacts;
  /**
   * A costlier second look (an HMAC per key of the other clusters) that may name the cause more
   * precisely; the ingress runs it only for refusals past the rate limiter, after the real
   * constant-time check has failed.
   */
  readonly diagnose?: () => Refusal;
}

/** A verifier's answer: the verified value, or why not. */
export type Checked<T> = { readonly ok: true; readonly value: T } | Refusal;

/** A verified value. */
export function verified<T>(value: T): Checked<T> {
  return { ok: true, value };
}

/** A refusal for `reason` with `facts` (undefined facts are left out). */
export function refuse(
  reason: RefusalReason,
  facts: Readonly<Record<string, string | undefined>> = {},
  diagnose?: () => Refusal,
): Refusal {
  const kept: Record<string, string> = {};
  for (const [name, value] of Object.entries(facts)) if (value !== undefined) kept[name] = value;
  return diagnose === undefined
    ? { ok: false, reason, facts: kept }
    : { ok: false, reason, facts: kept, diagnose };
}

/** The same refusal with `facts` added (a door adds what its URL names). */
export function withFacts(
  refusal: Refusal,
  facts: Readonly<Record<string, string | undefined>>,
): Refusal {
  const { diagnose } = refusal;
  return refuse(
    refusal.reason,
    { ...refusal.facts, ...facts },
    diagnose === undefined ? undefined : () => withFacts(diagnose(), facts),
  );
}

/** Longest fact kept: unverified tokens may carry anything, and a log line must stay a line. */
const MAX_FACT_LENGTH = 128;

/** `value` as a loggable fact: strings only, cut to MAX_FACT_LENGTH; anything else undefined. */
export function factText(value: unknown): string | undefined {
  if (typeof value !== 'string' || value.length === 0) return undefined;
  return value.length > MAX_FACT_LENGTH ? `${value.slice(0, MAX_FACT_LENGTH)}...` : value;
}

/**
 * The public facts a compact JWT states about itself, unverified: `kid` and `alg` of its
 * header, `iss` and `sub` of its payload. Whatever cannot be read is left out.
 */
export function tokenFacts(token: string): Record<string, string | undefined> {
  const facts: Record<string, string | undefined> = {};
  try {
    const header = decodeProtectedHeader(token);
    facts.kid = factText(header.kid);
    facts.alg = factText(header.alg);
  } catch {
    return facts; // not a JWS at all: nothing to tell
  }
  try {
    const payload = decodeJwt(token);
    facts.issuer = factText(payload.iss);
    facts.subject = factText(payload.sub);
  } catch {
    // An unreadable payload: the header's facts are still worth logging.
  }
  return facts;
}

/** The reason a JWTClaimValidationFailed or JWTExpired names, by its claim and reason. */
function claimReason(claim: string, why: string): RefusalReason {
  if (why === 'missing') return claim === 'jti' ? 'MissingJti' : 'MissingClaim';
  switch (claim) {
    case 'exp':
      return 'Expired';
    case 'nbf':
      return 'NotYetValid';
    case 'aud':
      return 'WrongAudience';
    case 'iss':
      return 'WrongIssuer';
    case 'typ':
      return 'WrongType';
    default:
      return 'Malformed';
  }
}

/**
 * The reason behind whatever jose (or WebCrypto under it) threw while verifying a token with
 * untrusted input: a claim check, the signature, the algorithm, the key set, or malformed input.
 */
export function joseReason(error: unknown): { reason: RefusalReason; claim?: string } {
  if (error instanceof errors.JWTClaimValidationFailed || error instanceof errors.JWTExpired) {
    const { claim, reason } = error;
    // jose reports `iat` in the future as a failed check, and too far in the past as expired.
    if (claim === 'iat' && reason === 'check_failed')
      return { reason: error instanceof errors.JWTExpired ? 'TooOld' : 'NotYetValid', claim };
    return { reason: claimReason(claim, reason), claim };
  }
  if (error instanceof errors.JWSSignatureVerificationFailed) return { reason: 'BadSignature' };
  if (error instanceof errors.JOSEAlgNotAllowed || error instanceof errors.JOSENotSupported)
    return { reason: 'BadAlgorithm' };
  if (error instanceof errors.JWKSNoMatchingKey) return { reason: 'UnknownKey' };
  if (error instanceof errors.JWKSTimeout || error instanceof errors.JWKSInvalid)
    return { reason: 'KeysUnavailable' };
  // A remote key set that cannot be fetched fails with jose's generic error (an HTTP status, a
  // body that is not JSON) or with fetch's own TypeError (no connection).
  if (error instanceof errors.JOSEError && error.code === 'ERR_JOSE_GENERIC')
    return { reason: 'KeysUnavailable' };
  if (error instanceof TypeError && error.message === 'fetch failed')
    return { reason: 'KeysUnavailable' };
  return { reason: 'Malformed' };
}

/** A refusal for a token jose refused with `error`, with the token's own public facts. */
export function joseRefusal(error: unknown, token: string): Refusal {
  const { reason, claim } = joseReason(error);
  return refuse(reason, { ...tokenFacts(token), claim });
}
