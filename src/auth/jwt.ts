/**
 * Bearer JWT verification with jose. Algorithms are pinned by configuration, so `alg: none`
 * and algorithm confusion (an HS256 token "signed" with an RSA public key) cannot pass: jose
 * rejects algorithms outside the list, and only asymmetric public keys are ever loaded.
 */
import { createPublicKey } from 'node:crypto';
import type { JsonWebKey as NodeJsonWebKey } from 'node:crypto';
import { createLocalJWKSet, createRemoteJWKSet, errors, jwtVerify } from 'jose';
import type { JWK, JWTPayload, JWTVerifyGetKey, JWTVerifyOptions } from 'jose';
import type { JwtConfig } from '../config/gateway-config.js';
import { joseRefusal, refuse, tokenFacts, verified, type Checked } from './refusal.js';

/** Resolves the verification key for a token's protected header (static keys and/or JWKS). */
export type JwtKeys = JWTVerifyGetKey;

/** Longest compact JWT we are willing to parse; real tokens are far smaller. */
const MAX_TOKEN_LENGTH = 16 * 1024;

/** Remote JWKS fetch settings: short timeout, bounded refetch rate on unknown `kid`. */
const REMOTE_JWKS_OPTIONS = {
  timeoutDuration: 5_000,
  cooldownDuration: 30_000,
  cacheMaxAge: 600_000,
};

/** JWK members worth keeping from configured keys besides the key material itself. */
const KEPT_MEMBERS = ['kid', 'alg', 'use'] as const;

function publicJwk(material: NodeJsonWebKey | string, extra: Partial<JWK>): JWK {
  const key =
    typeof material === 'string'
      ? createPublicKey(material)
      : createPublicKey({ key: material, format: 'jwk' });
  const jwk = key.export({ format: 'jwk' }) as JWK;
  for (const member of KEPT_MEMBERS) {
    const value = extra[member];
    if (typeof value === 'string') jwk[member] = value;
  }
  return jwk;
}

/**
 * Parses one configured key: PEM SPKI, a JWK, or a JWK Set, as JSON text. Throws (without
 * echoing the key) on private or symmetric keys, which have no place in verification config.
 */
export function parseStaticKeys(text: string): JWK[] {
  const trimmed = text.trim();
  if (trimmed.startsWith('-----BEGIN')) {
    if (!trimmed.startsWith('-----BEGIN PUBLIC KEY-----')) {
      throw new Error('JWT static keys must be PEM SPKI public keys (BEGIN PUBLIC KEY)');
    }
    return [publicJwk(trimmed, {})];
  }
  const parsed = JSON.parse(trimmed) as { keys?: unknown } & Partial<JWK>;
  const candidates: unknown[] = Array.isArray(parsed.keys) ? parsed.keys : [parsed];
  return candidates.map((candidate) => {
    const jwk = candidate as Partial<JWK>;
    if (typeof jwk.kty !== 'string' || jwk.kty === 'oct' || jwk.d !== undefined) {
      throw new Error('JWT static keys must be asymmetric public JWKs');
    }
    return publicJwk(jwk, jwk);
  });
}

/**
 * Builds the key resolver for `config`: static keys first, then the remote JWKS (fetched
 * lazily, cached by jose). A resolver with no keys rejects every token.
 */
export function createJwtKeys(config: JwtConfig): JwtKeys {
  const staticKeys = config.publicKeys.flatMap(parseStaticKeys);
  const local = staticKeys.length > 0 ? createLocalJWKSet({ keys: staticKeys }) : undefined;
  const remote =
    config.jwksUrl === undefined
      ? undefined
      : createRemoteJWKSet(new URL(config.jwksUrl), REMOTE_JWKS_OPTIONS);

  return async (header, token) => {
    if (local !== undefined) {
      try {
        return await local(header, token);
      } catch (error) {
        if (remote === undefined || !(error instanceof errors.JWKSNoMatchingKey)) throw error;
      }
    }
    if (remote !== undefined) return remote(header, token);
    throw new errors.JWKSNoMatchingKey();
  };
}

/** jose verification options derived from config: pinned algorithms, issuer, audience, exp. */
export function verifyOptions(config: JwtConfig): JWTVerifyOptions {
  return {
    issuer: config.issuer,
    audience: config.audience,
    algorithms: [...config.algorithms],
    clockTolerance: config.clockToleranceSeconds,
    // maxTokenAge requires `iat`, and refuses one older than the bound or in the future.
    maxTokenAge: config.maxTokenAgeSeconds,
    requiredClaims: ['exp', 'iat', 'sub'],
  };
}

/** A token may not claim to stay valid for longer than a token may be old. */
function lifetimeWithinBound(payload: JWTPayload, config: JwtConfig): boolean {
  const { exp, iat } = payload;
  if (typeof exp !== 'number' || typeof iat !== 'number') return false;
  return exp - iat <= config.maxTokenAgeSeconds + config.clockToleranceSeconds;
}

/**
 * The verified payload of `token`, or the refusal saying why not (bad signature, claims,
 * algorithm, unknown key, unreachable JWKS, ...); never a rejection. The caller logs the
 * reason and answers the one indistinguishable 401.
 */
export async function verifyJwt(
  token: string,
  keys: JwtKeys,
  config: JwtConfig,
): Promise<Checked<JWTPayload>> {
  if (token.length === 0 || token.length > MAX_TOKEN_LENGTH) return refuse('Malformed');
  const options = verifyOptions(config);
  const checked = await verifiedPayload(token, keys, options);
  if (!checked.ok || lifetimeWithinBound(checked.value, config)) return checked;
  return refuse('LifetimeTooLong', tokenFacts(token));
}

async function verifiedPayload(
  token: string,
  keys: JwtKeys,
  options: JWTVerifyOptions,
): Promise<Checked<JWTPayload>> {
  try {
    return verified((await jwtVerify(token, keys, options)).payload);
  } catch (error) {
    // Several keys without distinguishing `kid`: jose hands them over to try one by one.
    if (!(error instanceof errors.JWKSMultipleMatchingKeys)) return joseRefusal(error, token);
    let last: unknown = error;
    for await (const key of error) {
      try {
        return verified((await jwtVerify(token, key, options)).payload);
      } catch (keyError) {
        // A claim failure means the signature held with this key: that is the reason to tell.
        if (!(last instanceof errors.JWTClaimValidationFailed || last instanceof errors.JWTExpired))
          last = keyError;
      }
    }
    return joseRefusal(last, token);
  }
}
