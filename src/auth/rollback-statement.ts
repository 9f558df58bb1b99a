/**
 * Signed rollback statements: a compact JWS of its own type, `promotion-rollback+jwt`, by which
 * a configured approver asks to roll one environment of one Pipeline back, to a named revision
 * or (without `revision`) to the previous one it ran healthy, with a reason. Its own `typ` means
 * an approval or halt statement never passes for a rollback, nor a rollback for either. The
 * statement's id is recorded with the rollback, so the audit trail can be re-verified offline.
 */
import type { CryptoKey, KeyObject } from 'jose';
import type { Identity } from './identity.js';
import type { PipelineRef } from '../pipeline/id.js';
import {
  checkApproverStatement,
  statementPrincipal,
  type ApproverStatementConfig,
} from './approver-statement.js';
import { factText, refuse, verified, type Checked } from './refusal.js';
import { signTyped, STATEMENT_ALGORITHMS, type SignedClaims } from './statement.js';

/** The JWS `typ` of a rollback statement. */
export const ROLLBACK_STATEMENT_TYPE = 'promotion-rollback+jwt';

/** What a rollback statement says; `pipeline` is `namespace/name`, times in seconds. */
export interface RollbackStatementClaims extends SignedClaims {
  pipeline: string;
  environment: string;
  /** The revision to roll back to; absent = the previous one the environment ran healthy. */
  revision?: string;
  reason: string;
}

function isText(value: unknown, max: number): value is string {
  return typeof value === 'string' && value.length > 0 && value.length <= max;
}

/** The claims when the payload has exactly a rollback statement's shape, else undefined. */
export function rollbackClaimsOf(
  payload: Record<string, unknown>,
): RollbackStatementClaims | undefined {
  const { sub, iat, exp, jti, pipeline, environment, revision, reason } = payload;
  if (!isText(sub, 253) || !isText(jti, 256) || !isText(pipeline, 317)) return undefined;
  if (!isText(environment, 253) || !isText(reason, 1024)) return undefined;
  if (revision !== undefined && !isText(revision, 256)) return undefined;
  if (typeof iat !== 'number' || typeof exp !== 'number') return undefined;
  const base = { sub, iat, exp, jti, pipeline, environment, reason };
  return revision === undefined ? base : { ...base, revision };
}

/**
 * The rollback statement by a configured approver (named by the header's `kid`), valid at `now`
 * (ms) under the approval statements' limits and naming exactly `target`: its signer as an
 * identity whose `rollback` says what it asks; otherwise the refusal saying why (a 401).
 */
export async function checkRollbackStatement(
  config: ApproverStatementConfig,
  statement: string,
  target: { pipeline: PipelineRef; environment: string },
  now: number,
): Promise<Checked<Identity>> {
  const form = { typ: ROLLBACK_STATEMENT_TYPE, claims: rollbackClaimsOf };
  const checked = await checkApproverStatement(config, statement, now, form);
  if (!checked.ok) return checked;
  const { approver, claims } = checked.value;
  const { namespace, name: pipeline } = target.pipeline;
  if (claims.pipeline !== `${namespace}/${pipeline}` || claims.environment !== target.environment)
    return refuse('StatementForAnotherTarget', { kid: factText(approver.name) });
  return verified({
    kind: 'statement',
    subject: approver.name,
    scopes: { clusters: [], pipelines: [] },
    principal: statementPrincipal(checked.value),
    rollback: {
      reason: claims.reason,
      statement,
      ...(claims.revision === undefined ? {} : { revision: claims.revision }),
    },
  });
}

/** Signs `claims` as `claims.sub` with `privateKey` (EdDSA or ES256): the compact statement. */
export function signRollbackStatement(
  claims: RollbackStatementClaims,
  privateKey: CryptoKey | KeyObject,
  alg: (typeof STATEMENT_ALGORITHMS)[number],
): Promise<string> {
  return signTyped(ROLLBACK_STATEMENT_TYPE, claims, privateKey, alg);
}
