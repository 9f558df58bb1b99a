/**
 * OpenID Connect ID tokens: people approving through the organisation's SSO, and CI jobs
 * presenting their provider's token (GitHub Actions, GitLab CI, any other issuer). Keys come
 * from the issuer's JWKS through jose's remote key set: fetched on first use, cached,
 * refetched on an unknown `kid` at most every 30 s, each fetch bounded by a timeout.
 */
import { createRemoteJWKSet, jwtVerify, type JWTPayload, type JWTVerifyGetKey } from 'jose';
import type { OidcIssuerConfig } from '../config/gateway-config.js';
import { joseRefusal, refuse, tokenFacts, verified, type Checked } from './refusal.js';

/** Remote JWKS fetch settings: short timeout, bounded refetch rate, a 10-minute cache. */
const REMOTE_JWKS_OPTIONS = {
  timeoutDuration: 5_000,
  cooldownDuration: 30_000,
  cacheMaxAge: 600_000,
};
const MAX_TOKEN_LENGTH = 16 * 1024;
/**
 * The last second RFC 3339 can write (9999-12-31T23:59:59Z). A credential's expiry is recorded
 * as RFC 3339 in the Pipeline status; a later `exp` (jose takes any finite number) was a 500.
 */
const LAST_RFC3339_SECOND = 253_402_300_799;

/** A verified token's claims with the ones the gateway relies on present. */
export type VerifiedClaims = JWTPayload & { sub: string; jti: string; iat: number; exp: number };

/** Verifies tokens of one issuer. */
export class OidcVerifier {
  private readonly keys: JWTVerifyGetKey;

  /** `keys` defaults to the issuer's remote JWKS (tests may pass a local key set). */
  constructor(
    private readonly config: OidcIssuerConfig,
    keys?: JWTVerifyGetKey,
  ) {
    this.keys = keys ?? createRemoteJWKSet(new URL(config.jwksUrl), REMOTE_JWKS_OPTIONS);
  }

  /**
   * The claims of `token` when its signature, issuer, audience, algorithm and times hold at
   * `now` (ms): `exp` not past, `iat` neither in the future nor older than the maximum age,
   * `sub` and `jti` present. Otherwise the refusal saying why, an unreachable JWKS included;
   * never a rejection.
   */
  async verify(token: string, now: number): Promise<Checked<VerifiedClaims>> {
    if (token.length === 0 || token.length > MAX_TOKEN_LENGTH) return refuse('Malformed');
    const checked = await this.verifiedPayload(token, now);
    if (!checked.ok) return checked;
    const { sub, jti, iat, exp } = checked.value;
    const facts = tokenFacts(token);
    if (typeof jti !== 'string' || jti === '') return refuse('MissingJti', facts);
    if (typeof sub !== 'string' || sub === '')
      return refuse('MissingClaim', { ...facts, claim: 'sub' });
    if (typeof iat !== 'number' || typeof exp !== 'number') return refuse('Malformed', facts);
    if (exp > LAST_RFC3339_SECOND) return refuse('LifetimeTooLong', facts);
    return verified({ ...checked.value, sub, jti, iat, exp });
  }

  private async verifiedPayload(token: string, now: number): Promise<Checked<JWTPayload>> {
    const { config } = this;
    try {
      const verified = await jwtVerify(token, this.keys, {
        issuer: config.issuer,
        audience: config.audience,
        algorithms: [...config.algorithms],
        requiredClaims: ['exp', 'iat', 'jti', 'sub'],
        maxTokenAge: config.maxTokenAgeSeconds,
        clockTolerance: config.clockToleranceSeconds,
        currentDate: new Date(now),
      });
      return { ok: true, value: verified.payload };
    } catch (error) {
      // The token is untrusted input and the JWKS is the issuer's: whatever jose or WebCrypto
      // throws over them (a JOSEError, a TypeError, a DOMException for a key published broken)
      // means "not verified". Only this call is guarded; the checks in verify() still surface faults.
      return joseRefusal(error, token);
    }
  }
}

/** A claim as text for matching: strings as they are, numbers and booleans printed. */
export function claimText(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return undefined;
}
