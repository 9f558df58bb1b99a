/**
 * ours: status.environments[env].approvals[i] of a Pipeline, one recorded authorization, as in
 * schemas/pipeline.schema.json. Part of the Pipeline vocabulary (pipeline-resource.ts
 * re-exports it), kept apart only to keep that file short.
 */

/** How a principal proved itself: a person, a CI job, or weave's shared legacy key. */
export type AuthorizationKind = 'human' | 'ci' | 'legacy';

/**
 * ours: status.environments[env].approvals[i], one authorization (approval, rejection, CI
 * trigger or break-glass) of one revision by one principal, recorded before it counts.
 */
export interface AuthorizationRecord {
  /** `alice` (configured approver), `oidc:<issuer>#<sub>`, `ci:<policy>` or `legacy-hmac`. */
  principal: string;
  kind: AuthorizationKind;
  /** `break-glass`: the glass of a halt or window holding the revision (docs/policy.md). */
  decision: 'approve' | 'reject' | 'break-glass';
  revision: string;
  /** When the gateway recorded it (RFC 3339). */
  time: string;
  /** The credential's unique id; a second use of it is refused until it expires. */
  jti?: string;
  /** When the credential expires (RFC 3339); the record is kept at least until then. */
  expiresAt?: string;
  /** The principal's groups when it authorized (for `group:<name>` gates). */
  groups?: string[];
  comment?: string;
  /** The signed statement itself (compact JWS), so the audit trail can be re-verified offline. */
  statement?: string;
}
