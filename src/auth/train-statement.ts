/**
 * Signed train approval statements: a compact JWS of its own type, `promotion-train-approval+jwt`,
 * by which a configured approver approves (or rejects) one combination of a release train's
 * member revisions for one environment. It names the combination twice, by its members' revisions
 * and by its digest (sha256 over their canonical JSON, as the train's status names it), and the
 * two must agree, so the statement stored on each member's record can be re-verified offline
 * without the train. Its own `typ` means it never passes for a Pipeline's approval, nor one for it.
 */
import { createHash } from 'node:crypto';
import type { CryptoKey, KeyObject } from 'jose';
import { canonicalJson } from '../json/canonical-json.js';
import type { Identity } from './identity.js';
import {
  checkApproverStatement,
  statementPrincipal,
  type ApproverStatementConfig,
} from './approver-statement.js';
import { factText, refuse, verified, type Checked } from './refusal.js';
import { signTyped, STATEMENT_ALGORITHMS, type SignedClaims } from './statement.js';

/** The JWS `typ` of a train approval statement. */
export const TRAIN_STATEMENT_TYPE = 'promotion-train-approval+jwt';

const DIGEST = /^sha256:[0-9a-f]{64}$/;
const MAX_MEMBERS = 32;

/** What a train approval statement says; `train` is `namespace/name`, times in seconds. */
export interface TrainStatementClaims extends SignedClaims {
  train: string;
  environment: string;
  /** `sha256:<hex>` of the canonical JSON of `members`. */
  combinationDigest: string;
  /** Each member's revision in the combination, by member name. */
  members: Record<string, string>;
  decision: 'approve' | 'reject';
  comment?: string;
}

/** The digest of a combination's members: `sha256:` over their canonical JSON. */
export function membersDigest(members: Readonly<Record<string, string>>): string {
  return `sha256:${createHash('sha256').update(canonicalJson(members)).digest('hex')}`;
}

function isText(value: unknown, max: number): value is string {
  return typeof value === 'string' && value.length > 0 && value.length <= max;
}

function membersOf(value: unknown): Record<string, string> | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const entries = Object.entries(value as Record<string, unknown>);
  if (entries.length === 0 || entries.length > MAX_MEMBERS) return undefined;
  const members: Record<string, string> = {};
  for (const [name, revision] of entries) {
    if (!isText(name, 253) || !isText(revision, 256)) return undefined;
    members[name] = revision;
  }
  return members;
}

/**
 * The claims when the payload has exactly a train approval statement's shape and its digest is
 * that of its members, else undefined.
 */
export function trainClaimsOf(payload: Record<string, unknown>): TrainStatementClaims | undefined {
  const { sub, iat, exp, jti, train, environment, combinationDigest, decision, comment } = payload;
  if (!isText(sub, 253) || !isText(jti, 256) || !isText(train, 317)) return undefined;
  if (!isText(environment, 253) || !isText(combinationDigest, 71)) return undefined;
  if (!DIGEST.test(combinationDigest)) return undefined;
  if (decision !== 'approve' && decision !== 'reject') return undefined;
  if (comment !== undefined && !isText(comment, 1024)) return undefined;
  if (typeof iat !== 'number' || typeof exp !== 'number') return undefined;
  const members = membersOf(payload.members);
  if (members === undefined || membersDigest(members) !== combinationDigest) return undefined;
  const base: TrainStatementClaims = {
    ...{ sub, iat, exp, jti, train, environment, combinationDigest, members },
    decision: decision === 'approve' ? 'approve' : 'reject',
  };
  return comment === undefined ? base : { ...base, comment };
}

/** The train approval statements' form: its `typ` and the parser of its claims. */
export const TRAIN_STATEMENT_FORM = { typ: TRAIN_STATEMENT_TYPE, claims: trainClaimsOf };

/** The train and environment a train approval's URL names. */
export interface TrainTarget {
  train: { namespace: string; name: string };
  environment: string;
}

/**
 * The train approval statement by a configured approver (named by the header's `kid`), valid at
 * `now` (ms) under the approval statements' limits and naming exactly `target`: its signer as an
 * identity whose `trainClaim` says what it approves; otherwise the refusal saying why (a 401).
 */
export async function checkTrainStatement(
  config: ApproverStatementConfig,
  statement: string,
  target: TrainTarget,
  now: number,
): Promise<Checked<Identity>> {
  const checked = await checkApproverStatement(config, statement, now, TRAIN_STATEMENT_FORM);
  if (!checked.ok) return checked;
  const { approver, claims } = checked.value;
  const { namespace, name } = target.train;
  if (claims.train !== `${namespace}/${name}` || claims.environment !== target.environment)
    return refuse('StatementForAnotherTarget', { kid: factText(approver.name) });
  return verified({
    kind: 'statement',
    subject: approver.name,
    scopes: { clusters: [], pipelines: [] },
    principal: statementPrincipal(checked.value),
    trainClaim: {
      combinationDigest: claims.combinationDigest,
      decision: claims.decision,
      ...(claims.comment === undefined ? {} : { comment: claims.comment }),
      statement,
    },
  });
}

/** Signs `claims` as `claims.sub` with `privateKey` (EdDSA or ES256): the compact statement. */
export function signTrainStatement(
  claims: TrainStatementClaims,
  privateKey: CryptoKey | KeyObject,
  alg: (typeof STATEMENT_ALGORITHMS)[number],
): Promise<string> {
  return signTyped(TRAIN_STATEMENT_TYPE, claims, privateKey, alg);
}
