/**
 * Token claims and the rules that judge them: honest claims for a door, mutations (expired, not
 * yet valid, issued in the future, too old, too long-lived, wrong audience or issuer, a claim
 * missing or of another type, extra claims nobody reads), and the documented rules of each
 * verifier applied to the claims a token ends up with (so mutations that undo each other are
 * judged as sent). The doors' answers are checked against that judgement.
 */
import fc from 'fast-check';
import { makeToken, forgeryArb, type Forgery, type TokenMaker } from './jws.js';

/** What a verifier checks besides the signature (docs/api.md, docs/approvals.md). */
export interface Profile {
  issuer?: string;
  audience?: string;
  /** The JWS `typ` it pins (signed statements). */
  typ?: string;
  requiresJti: boolean;
  /** How old `iat` may be, and the clock tolerance, in seconds. */
  maxAgeSeconds: number;
  toleranceSeconds: number;
  /** The longest `exp - iat` it takes, when it bounds one. */
  maxLifetimeSeconds?: number;
}

/** Whether a credential authenticates: known either way, or not modelled. */
export type Validity = 'valid' | 'invalid' | 'unknown';

/** A token's payload as generated: any JSON the fuzzer put there. */
export type Claims = Record<string, unknown>;

interface Mutation {
  name: string;
  apply: (claims: Claims, now: number) => Claims;
}

/** The last second RFC 3339 can write: no credential may expire later (a record keeps it). */
const LAST_RFC3339_SECOND = 253_402_300_799;

const without = (claims: Claims, name: string): Claims =>
  Object.fromEntries(Object.entries(claims).filter(([key]) => key !== name));

const MUTATIONS: readonly Mutation[] = [
  { name: 'expired', apply: (c, t) => ({ ...c, iat: t - 700, exp: t - 600 }) },
  { name: 'not-yet-valid', apply: (c, t) => ({ ...c, nbf: t + 600 }) },
  { name: 'nbf-past', apply: (c, t) => ({ ...c, nbf: t - 10 }) },
  { name: 'future-iat', apply: (c, t) => ({ ...c, iat: t + 600, exp: t + 900 }) },
  { name: 'too-old', apply: (c, t) => ({ ...c, iat: t - 30 * 86_400, exp: t + 60 }) },
  { name: 'long-lifetime', apply: (c, t) => ({ ...c, iat: t, exp: t + 2 * 86_400 }) },
  { name: 'wrong-audience', apply: (c) => ({ ...c, aud: 'another-audience' }) },
  { name: 'audience-list', apply: (c) => ({ ...c, aud: ['another-audience', c.aud ?? 'x'] }) },
  { name: 'wrong-issuer', apply: (c) => ({ ...c, iss: 'https://issuer.evil.example' }) },
  { name: 'no-sub', apply: (c) => without(c, 'sub') },
  { name: 'empty-sub', apply: (c) => ({ ...c, sub: '' }) },
  { name: 'no-jti', apply: (c) => without(c, 'jti') },
  { name: 'no-exp', apply: (c) => without(c, 'exp') },
  { name: 'no-iat', apply: (c) => without(c, 'iat') },
  { name: 'exp-as-text', apply: (c) => ({ ...c, exp: String(c.exp) }) },
  { name: 'huge-exp', apply: (c) => ({ ...c, exp: 1e308 }) },
  { name: 'exp-year-10000', apply: (c) => ({ ...c, exp: LAST_RFC3339_SECOND + 1 }) },
  { name: 'exp-year-9999', apply: (c) => ({ ...c, exp: LAST_RFC3339_SECOND }) },
];

/** A claim set to a value of any JSON type. */
function confusion(): fc.Arbitrary<Mutation> {
  return fc
    .tuple(
      fc.constantFrom('sub', 'jti', 'pipelines', 'groups', 'repository'),
      fc.jsonValue({ maxDepth: 2 }),
    )
    .map(([claim, value]) => ({
      name: `${claim}-confused`,
      apply: (c: Claims) => ({ ...c, [claim]: value }),
    }));
}

/** Claims nobody checks, which must change nothing. */
function extraClaims(): fc.Arbitrary<Claims> {
  return fc.dictionary(
    fc.string({ minLength: 1, maxLength: 8 }).map((k) => `x_${k}`),
    fc.jsonValue({ maxDepth: 3 }),
    {
      maxKeys: 3,
    },
  );
}

/** The worse of two validities: invalid wins, then unknown. */
export function worst(a: Validity, b: Validity): Validity {
  if (a === 'invalid' || b === 'invalid') return 'invalid';
  return a === 'unknown' || b === 'unknown' ? 'unknown' : 'valid';
}

const isText = (v: unknown): v is string => typeof v === 'string' && v.length > 0;

function audienceValidity(aud: unknown, audience: string | undefined): Validity {
  if (audience === undefined) return 'valid';
  if (typeof aud === 'string') return aud === audience ? 'valid' : 'invalid';
  if (!Array.isArray(aud)) return 'invalid';
  if (!aud.every((a) => typeof a === 'string')) return 'unknown';
  return aud.includes(audience) ? 'valid' : 'invalid';
}

function timeValidity(c: Claims, p: Profile, now: number): Validity {
  const { exp, iat, nbf } = c;
  if (typeof exp !== 'number' || typeof iat !== 'number' || exp > LAST_RFC3339_SECOND)
    return 'invalid';
  if (nbf !== undefined && (typeof nbf !== 'number' || nbf > now + p.toleranceSeconds))
    return 'invalid';
  if (exp <= now - p.toleranceSeconds || iat > now + p.toleranceSeconds) return 'invalid';
  if (now - iat > p.maxAgeSeconds + p.toleranceSeconds) return 'invalid';
  return p.maxLifetimeSeconds !== undefined && exp - iat > p.maxLifetimeSeconds
    ? 'invalid'
    : 'valid';
}

/**
 * The documented rules applied to `claims` at `now` (seconds): a string `sub`, `exp` and `iat`
 * as numbers within the clock tolerance and maximum age, `nbf` passed, the lifetime bounded
 * where the verifier bounds it, the audience and issuer it pins, a `jti` where required.
 */
export function judge(claims: Claims, profile: Profile, now: number): Validity {
  let validity = timeValidity(claims, profile, now);
  if (!isText(claims.sub)) validity = 'invalid';
  if (profile.requiresJti && !isText(claims.jti)) validity = 'invalid';
  if (profile.issuer !== undefined && claims.iss !== profile.issuer) validity = 'invalid';
  return worst(validity, audienceValidity(claims.aud, profile.audience));
}

function forgeryValidity(forgery: Forgery, profile: Profile): Validity {
  if (forgery === 'honest') return 'valid';
  // Only a verifier that pins `typ` refuses another one (docs: statements of one kind never
  // pass for another); jose ignores `typ` otherwise.
  if (forgery === 'wrong-typ') return profile.typ === undefined ? 'valid' : 'invalid';
  return 'invalid';
}

/** A generated token, what it claims and whether it should authenticate. */
export interface FuzzToken {
  token: string;
  validity: Validity;
  /** What was done to it, for the counterexample. */
  label: string;
  claims: Claims;
}

/**
 * Tokens over `honest(now)` claims: mutated (or not), forged (or not), signed at generation
 * time. `now` is read when a value is generated, so a shrunk counterexample is re-signed fresh.
 */
export function tokenArb(
  maker: TokenMaker,
  profile: Profile,
  honest: (now: number) => Claims,
): fc.Arbitrary<FuzzToken> {
  const mutation = fc.oneof({ arbitrary: fc.constantFrom(...MUTATIONS), weight: 4 }, confusion());
  return fc
    .record({
      mutations: fc.array(mutation, { maxLength: 2 }),
      extra: extraClaims(),
      forgery: forgeryArb(),
      noise: fc.nat(),
    })
    .map(({ mutations, extra, forgery, noise }) => {
      const now = Math.floor(Date.now() / 1000);
      let claims: Claims = { ...honest(now), ...extra };
      for (const m of mutations) claims = m.apply(claims, now);
      const validity = worst(forgeryValidity(forgery, profile), judge(claims, profile, now));
      const token = makeToken(maker, claims, forgery, noise);
      const label = [forgery, ...mutations.map((m) => m.name)].join('+');
      return { token, validity, label, claims };
    });
}
