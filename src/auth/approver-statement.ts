/**
 * A statement signed by one of the configured approvers, of any kind (approval, halt, rollback):
 * the signer named by the header's `kid` found among the approvers, the statement checked with
 * their keys under the approval statements' limits. One path for every kind, so each refuses
 * alike and names the same `kid` in its refusal.
 */
import type { ApproverConfig, AuthorizationConfig } from '../config/gateway-config.js';
import type { Principal } from './identity.js';
import { factText, refuse, verified, withFacts, type Checked } from './refusal.js';
import {
  checkSigned,
  statementSigner,
  type SignedClaims,
  type StatementForm,
} from './statement.js';

/** What checking an approver's statement reads of the configuration. */
export type ApproverStatementConfig = Pick<
  AuthorizationConfig,
  'approvers' | 'maxStatementLifetimeSeconds' | 'clockToleranceSeconds'
>;

/** A statement verified: the approver who signed it and what it claims. */
export interface ApproverStatement<C extends SignedClaims> {
  approver: ApproverConfig;
  claims: C;
}

/**
 * The statement of `form` signed by a configured approver, valid at `now` (ms); otherwise the
 * refusal saying why (a 401), with the `kid` it named as a fact.
 */
export async function checkApproverStatement<C extends SignedClaims>(
  config: ApproverStatementConfig,
  statement: string,
  now: number,
  form: StatementForm<C>,
): Promise<Checked<ApproverStatement<C>>> {
  const name = statementSigner(statement);
  if (name === undefined) return refuse('Malformed');
  const approver = config.approvers.find((a) => a.name === name);
  if (approver === undefined) return refuse('UnknownApprover', { kid: factText(name) });
  const policy = {
    maxLifetimeSeconds: config.maxStatementLifetimeSeconds,
    clockToleranceSeconds: config.clockToleranceSeconds,
  };
  const checked = await checkSigned(statement, approver, policy, now, form);
  if (!checked.ok) return withFacts(checked, { kid: factText(name) });
  return verified({ approver, claims: checked.value });
}

/** The principal a verified statement records: its approver, and the statement's id and expiry. */
export function statementPrincipal({
  approver,
  claims,
}: ApproverStatement<SignedClaims>): Principal {
  return {
    name: approver.name,
    kind: 'human',
    groups: approver.groups,
    jti: claims.jti,
    expiresAt: claims.exp * 1000,
  };
}
