/**
 * The outcome of authentication: who is calling and what they may speak for. The credential,
 * not the URL or payload, decides the cluster.
 */

/** How the caller proved itself. */
export type IdentityKind = 'hmac' | 'jwt' | 'legacy-hmac';

/** Scopes a credential is bound to. */
export interface IdentityScopes {
  /** Clusters whose Flux events this credential may post. */
  clusters: readonly string[];
  /** Pipelines (namespace/name) this credential may read or act on; '*' for all. */
  pipelines: readonly string[];
}

/** An authenticated caller. `subject` is safe to log (never a secret). */
export interface Identity {
  kind: IdentityKind;
  subject: string;
  scopes: IdentityScopes;
}
