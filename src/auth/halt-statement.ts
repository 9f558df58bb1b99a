/**
 * Signed halt statements: a compact JWS of its own type, `promotion-halt+jwt`, by which a
 * configured approver halts one Pipeline or every Pipeline a label selector matches (action
 * `halt`), or lifts a halt by id (action `lift`), with their own key. Its own `typ` means an
 * approval statement never passes for a halt, nor a halt for an approval. The gateway keeps the
 * statement in the halt record, so the halt can be re-verified offline with the public keys.
 */
import type { CryptoKey, KeyObject } from 'jose';
import { PLAIN_TEXT_RULE, unsafeCharacterOf } from '../text/text.js';
import { isRfc3339, RFC3339_RULE } from '../time/kube-time.js';
import type { Identity } from './identity.js';
import {
  checkApproverStatement,
  statementPrincipal,
  type ApproverStatementConfig,
} from './approver-statement.js';
import { refuse, verified, type Checked } from './refusal.js';
import { signTyped, STATEMENT_ALGORITHMS, type SignedClaims } from './statement.js';

/** The JWS `typ` of a halt statement. */
export const HALT_STATEMENT_TYPE = 'promotion-halt+jwt';
/** The longest halt statement accepted: the halt record keeps it. */
export const MAX_HALT_STATEMENT_LENGTH = 4096;

/**
 * What a halt statement says. A halt names exactly one of `pipeline` (`namespace/name`) and
 * `selector` (a label selector's text, `namespace` optionally narrowing it), a `reason`, and
 * optionally `environment` and `haltExpiresAt` (RFC 3339). A lift names `haltId` (and, to lift
 * it from one Pipeline only, `pipeline`). Times `iat`/`exp` are seconds since the epoch.
 */
export interface HaltStatementClaims extends SignedClaims {
  action: 'halt' | 'lift';
  pipeline?: string;
  selector?: string;
  namespace?: string;
  environment?: string;
  reason?: string;
  haltExpiresAt?: string;
  haltId?: string;
}

const HALT_ID = /^[A-Za-z0-9-]{1,64}$/;

function isText(value: unknown, max: number): value is string {
  return typeof value === 'string' && value.length > 0 && value.length <= max;
}

function optionalText(value: unknown, max: number): boolean {
  return value === undefined || isText(value, max);
}

/** The claims when the payload has exactly a halt's or a lift's shape, else undefined. */
export function haltClaimsOf(payload: Record<string, unknown>): HaltStatementClaims | undefined {
  const { sub, iat, exp, jti, action } = payload;
  if (!isText(sub, 253) || !isText(jti, 256)) return undefined;
  if (typeof iat !== 'number' || typeof exp !== 'number') return undefined;
  const texts = { pipeline: 317, selector: 1024, namespace: 63, environment: 253, reason: 1024 };
  const fields: Record<string, string> = {};
  for (const [name, max] of [
    ...Object.entries(texts),
    ['haltExpiresAt', 64],
    ['haltId', 64],
  ] as const) {
    const value = payload[name];
    if (!optionalText(value, max)) return undefined;
    if (typeof value === 'string') fields[name] = value;
  }
  const claims = { sub, iat, exp, jti, ...fields };
  if (action === 'halt') return haltShape(claims) ? { ...claims, action } : undefined;
  if (action === 'lift') return liftShape(claims) ? { ...claims, action } : undefined;
  return undefined;
}

function haltShape(c: Omit<HaltStatementClaims, 'action'>): boolean {
  if ((c.pipeline === undefined) === (c.selector === undefined)) return false;
  if (c.namespace !== undefined && c.selector === undefined) return false;
  return c.reason !== undefined && c.haltId === undefined;
}

function liftShape(c: Omit<HaltStatementClaims, 'action'>): boolean {
  if (c.haltId === undefined || !HALT_ID.test(c.haltId)) return false;
  const extra = [c.selector, c.namespace, c.environment, c.haltExpiresAt];
  return extra.every((v) => v === undefined);
}

/**
 * What the claims ask for that the JSON doors' schema (`date-time`, `plain-text`) refuses, as
 * `<claim> <rule>`, or undefined: a signed halt is refused (400) where the same JSON one is.
 */
export function haltClaimsProblem(claims: HaltStatementClaims): string | undefined {
  const { haltExpiresAt, reason } = claims;
  if (haltExpiresAt !== undefined && !isRfc3339(haltExpiresAt))
    return `haltExpiresAt ${RFC3339_RULE}`;
  const unsafe = reason === undefined ? undefined : unsafeCharacterOf(reason);
  return unsafe === undefined ? undefined : `reason ${PLAIN_TEXT_RULE} (${unsafe})`;
}

/** A verified halt statement: who signed it (as an identity) and what it says. */
export interface HaltStatement {
  identity: Identity;
  claims: HaltStatementClaims;
}

/**
 * The halt statement by a configured approver (named by the header's `kid`), valid at `now`
 * (ms) under the approval statements' limits; otherwise the refusal saying why (a 401).
 */
export async function checkHaltStatement(
  config: ApproverStatementConfig,
  statement: string,
  now: number,
): Promise<Checked<HaltStatement>> {
  if (statement.length > MAX_HALT_STATEMENT_LENGTH) return refuse('Malformed');
  const form = { typ: HALT_STATEMENT_TYPE, claims: haltClaimsOf };
  const checked = await checkApproverStatement(config, statement, now, form);
  if (!checked.ok) return checked;
  const { approver, claims } = checked.value;
  const principal = statementPrincipal(checked.value);
  const scopes = { clusters: [], pipelines: [] };
  return verified({
    identity: { kind: 'statement', subject: approver.name, scopes, principal },
    claims,
  });
}

/** Signs `claims` as `claims.sub` with `privateKey` (EdDSA or ES256): the compact statement. */
export function signHaltStatement(
  claims: HaltStatementClaims,
  privateKey: CryptoKey | KeyObject,
  alg: (typeof STATEMENT_ALGORITHMS)[number],
): Promise<string> {
  return signTyped(HALT_STATEMENT_TYPE, claims, privateKey, alg);
}
