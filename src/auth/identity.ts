/**
 * The outcome of authentication: who is calling and what they may speak for. The credential,
 * not the URL or payload, decides the cluster.
 */

import type { AuthorizationKind, AuthorizationRecord } from '../pipeline/pipeline-resource.js';

/** What an authorization says: approve, reject, or break the glass of a halt or window. */
export type AuthorizationDecision = AuthorizationRecord['decision'];

/**
 * How the caller proved itself: a cluster's Flux HMAC key, a JWT, a Pipeline's legacy key, an
 * approver's signed statement, an SSO token, or a CI provider's token.
 */
export type IdentityKind = 'hmac' | 'jwt' | 'legacy-hmac' | 'statement' | 'sso' | 'ci';

/** Scopes a credential is bound to. */
export interface IdentityScopes {
  /** Clusters whose Flux events this credential may post. */
  clusters: readonly string[];
  /** Pipelines (namespace/name) this credential may read or act on; '*' for all. */
  pipelines: readonly string[];
}

/**
 * Who authorizes a promotion, as recorded: a configured approver's name, `oidc:<iss>#<sub>`,
 * `ci:<policy>` or `legacy-hmac`, with the groups the gate may name and the credential's
 * single-use id and expiry (ms since the epoch).
 */
export interface Principal {
  name: string;
  kind: AuthorizationKind;
  groups: readonly string[];
  jti?: string;
  expiresAt?: number;
}

/** What a signed statement or a request body asks for, once authenticated. */
export interface AuthorizationClaim {
  revision: string;
  /** A `break-glass` carries its reason in `comment` (the doors refuse one without). */
  decision: AuthorizationDecision;
  comment?: string;
  /** The signed statement as received (the JWS door only). */
  statement?: string;
  /** The digest of the previewed change the approver saw: it counts only while that holds. */
  previewDigest?: string;
  /** For an approval of a release train's combination: that combination's digest. */
  combinationDigest?: string;
}

/** What a rollback request asks, once authenticated (docs/api.md, "Rollbacks"). */
export interface RollbackClaim {
  /** The revision to roll back to; absent = the previous one the environment ran healthy. */
  revision?: string;
  reason: string;
  /** The signed statement as received (the JWS door only). */
  statement?: string;
}

/** What a person's approval of a release train's combination says, once authenticated. */
export interface TrainApprovalClaim {
  /** The combination approved, as the train's status names it. */
  combinationDigest: string;
  decision: 'approve' | 'reject';
  comment?: string;
  /** The signed statement as received (the JWS door only). */
  statement?: string;
}

/** An authenticated caller. `subject` is safe to log (never a secret). */
export interface Identity {
  kind: IdentityKind;
  subject: string;
  scopes: IdentityScopes;
  /** Set for the authorization doors: who is authorizing. */
  principal?: Principal;
  /** Set by the statement door: what the signed statement says. */
  claim?: AuthorizationClaim;
  /** Set by the rollback statement door: what the signed rollback statement asks. */
  rollback?: RollbackClaim;
  /** Set by the train approval statement door: what the signed statement approves. */
  trainClaim?: TrainApprovalClaim;
}
