/**
 * OpenID Connect ID tokens: people approving through the organisation's SSO, and CI jobs
 * presenting their provider's token (GitHub Actions, GitLab CI, any other issuer). Keys come
 * from the issuer's JWKS through jose's remote key set: fetched on first use, cached,
 * refetched on an unknown `kid` at most every 30 s, each fetch bounded by a timeout.
 */
import { createRemoteJWKSet, jwtVerify, type JWTPayload, type JWTVerifyGetKey } from 'jose';
import type { OidcIssuerConfig } from '../config/gateway-config.js';

/** Remote JWKS fetch settings: short timeout, bounded refetch rate, a 10-minute cache. */
const REMOTE_JWKS_OPTIONS = {
  timeoutDuration: 5_000,
  cooldownDuration: 30_000,
  cacheMaxAge: 600_000,
};
const MAX_TOKEN_LENGTH = 16 * 1024;

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
   * `sub` and `jti` present. Undefined for any failure, an unreachable JWKS included; never a
   * rejection.
   */
  async verify(token: string, now: number): Promise<VerifiedClaims | undefined> {
    if (token.length === 0 || token.length > MAX_TOKEN_LENGTH) return undefined;
    const payload = await this.verifiedPayload(token, now);
    if (payload === undefined) return undefined;
    const { sub, jti, iat, exp } = payload;
    if (typeof sub !== 'string' || typeof jti !== 'string' || sub === '' || jti === '')
      return undefined;
    if (typeof iat !== 'number' || typeof exp !== 'number') return undefined;
    return { ...payload, sub, jti, iat, exp };
  }

  private async verifiedPayload(token: string, now: number): Promise<JWTPayload | undefined> {
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
      return verified.payload;
    } catch {
      // The token is untrusted input and the JWKS is the issuer's: whatever jose or WebCrypto
      // throws over them (a JOSEError, a TypeError, a DOMException for a key published broken)
      // means "not verified". Only this call is guarded; the checks in verify() still surface faults.
      return undefined;
    }
  }
}

/** A claim as text for matching: strings as they are, numbers and booleans printed. */
export function claimText(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return undefined;
}
