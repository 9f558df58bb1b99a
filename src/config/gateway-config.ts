/**
 * The gateway's configuration after validation against schemas/config.schema.json and secret
 * resolution. Built once at start by loadConfig() and frozen; nothing else reads process.env.
 */
import type { RetryPolicy } from '../evaluate/decisions.js';
import type { FleetWindow } from '../windows/promotion-window.js';
import type { BreakGlassPolicy } from '../evaluate/decisions.js';

/** A secret as resolved at load time. Never logged: see src/log.ts redaction paths. */
export type SecretBytes = Buffer;

/** One cluster the gateway knows: how to reach it and which credentials speak for it. */
export interface ClusterConfig {
  /** The public name used in `/v1/events/{cluster}`. */
  name: string;
  /** The GitopsCluster holding its kubeconfig; absent for the management cluster itself. */
  gitopsCluster?: { namespace: string; name: string };
  /** Flux generic-hmac keys (the raw bytes of the Provider Secret's `token`); two during rotation. */
  hmacKeys: readonly SecretBytes[];
  /** JWT `sub` values allowed to post events for this cluster. */
  jwtSubjects: readonly string[];
}

/** JWT verification settings (jose). Keys come from a JWKS URL or static public keys. */
export interface JwtConfig {
  issuer: string;
  audience: string;
  algorithms: readonly string[];
  jwksUrl?: string;
  /** Static verification keys as PEM (SPKI) or JWK JSON text. */
  publicKeys: readonly string[];
  clockToleranceSeconds: number;
  /** `iat` is required; older tokens, and tokens valid (exp - iat) for longer, are refused. */
  maxTokenAgeSeconds: number;
}

/** A named outbound endpoint for the `webhook` promotion strategy. */
export interface WebhookEndpoint {
  url: string;
  /**
   * The Standard Webhooks HMAC key: a `whsec_<base64>` secret decoded, any other secret's own
   * bytes; absent = unsigned.
   */
  secret?: SecretBytes;
  timeoutMs: number;
}

/** Settings of the `pull-request` promotion strategy; each Pipeline names forge, repository, Secret. */
export interface PullRequestSettings {
  author: { name: string; email: string };
  /** Commit message template: {namespace}, {pipeline}, {environment}, {revision} are replaced. */
  commitMessage: string;
  /** `host` or `host:port` a Pipeline may name; empty = any. */
  allowedHosts: readonly string[];
  /** Accept http:// repository URLs (loopback test forges only). */
  allowPlainHttp: boolean;
  gitTimeoutMs: number;
  apiTimeoutMs: number;
  /** Bound on one whole attempt (every Git and forge call of it): its claim's deadline. */
  attemptTimeoutMs: number;
  /** An open pull request's state is read again at most this often. */
  refreshIntervalMs: number;
}

/** External checks (docs/policy.md): how many reads at once, and where HTTP checks may call. */
export interface ChecksSettings {
  maxConcurrent: number;
  http: {
    /**
     * URL prefixes an HTTP check may call; empty = HTTP checks disabled. An IP-literal entry
     * also opens that internal address (src/egress/address-guard.ts).
     */
    allowedUrlPrefixes: readonly string[];
  };
}

/** PromotionTrains (docs/policy.md, "Release trains"): what the operator allows them. */
export interface TrainsConfig {
  /**
   * Which trains may name members of other namespaces: false = none (each train its own
   * namespace only), true = every train, a list = trains in these namespaces.
   */
  crossNamespace: boolean | readonly string[];
}

/** PromotionAlerts (docs/notifications.md): what the operator allows them. */
export interface NotificationsConfig {
  /**
   * Which alerts may select Pipelines of other namespaces: false = none (each alert its own
   * namespace only), true = every alert, a list = alerts in these namespaces.
   */
  crossNamespace: boolean | readonly string[];
  /**
   * URL prefixes an alert may deliver to (outbound/url-policy.ts' rules); empty = any outside the
   * refused address classes, which only an IP-literal entry opens (src/egress/address-guard.ts).
   */
  allowedUrlPrefixes: readonly string[];
  /** Whether the Lease holder delivers at all. */
  enabled: boolean;
  /** How often the Lease holder looks for events to deliver. */
  intervalMs: number;
  /** The first retry's ceiling, doubled per attempt (with jitter) up to retryMaxMs. */
  retryBaseMs: number;
  retryMaxMs: number;
  /** How long after it happened an event is still tried before it is dropped. */
  horizonMs: number;
  /** How long the write that begins a wait for an approval waits for the change's preview. */
  previewWaitMs: number;
}

/** An OIDC issuer whose tokens are verified against its remote JWKS. */
export interface OidcIssuerConfig {
  issuer: string;
  audience: string;
  jwksUrl: string;
  algorithms: readonly string[];
  /** Tokens with an older `iat` are refused; `iat` is required. */
  maxTokenAgeSeconds: number;
  clockToleranceSeconds: number;
}

/** A person who may approve: by a signed statement and/or through SSO. */
export interface ApproverConfig {
  name: string;
  /** Verification keys (PEM SPKI or JWK text), EdDSA or ES256. */
  publicKeys: readonly string[];
  /** `<issuer>#<sub>` identities of this person at the SSO issuer. */
  oidcSubjects: readonly string[];
  groups: readonly string[];
}

/** The least any gate of environments named `environment` asks for. */
export interface FloorConfig {
  environment: string;
  minApprovals: number;
  minHumanApprovals: number;
  approvers: readonly string[];
}

/** Which CI tokens may authorize what, as principal `ci:<name>`. */
export interface CiPolicyConfig {
  name: string;
  /** The name of a CI issuer. */
  issuer: string;
  /** Claim -> exact value or simple glob (`*` matches any run of characters). */
  claims: Readonly<Record<string, string>>;
  /** `namespace/name`, `namespace/*` or `*`. */
  pipelines: readonly string[];
  environments: readonly string[];
}

/** The authorization doors: signed approvals by people and CI-triggered promotions. */
export interface AuthorizationConfig {
  approvers: readonly ApproverConfig[];
  /** SSO for people; absent = no OIDC approvals. */
  oidc?: OidcIssuerConfig;
  groupsClaim: string;
  maxStatementLifetimeSeconds: number;
  clockToleranceSeconds: number;
  /** By environment name. */
  floors: Readonly<Record<string, FloorConfig>>;
  legacyEndpoint: boolean;
  /** Break-glass authorizations (docs/policy.md); disabled while absent or `approvers` is empty. */
  breakGlass?: BreakGlassPolicy;
  ci: {
    issuers: readonly (OidcIssuerConfig & { name: string })[];
    policies: readonly CiPolicyConfig[];
  };
}

/** The web view's listener (docs/ui.md). */
export interface UiConfig {
  /** Its own port, on server.host. */
  port: number;
  /** Demo only: every Pipeline to anyone, without a token. */
  anonymous: boolean;
  /** Live-update streams open at once on this replica. */
  maxStreams: number;
  /** Where people reach the view, without a trailing slash; notifications link to it. */
  externalUrl?: string;
}

/** The whole, frozen configuration. */
export interface GatewayConfig {
  server: {
    host: string;
    port: number;
    bodyLimitBytes: number;
    requestTimeoutMs: number;
    /** When set, /metrics is served on this port only, not beside the ingress routes. */
    metricsPort?: number;
    trustProxy: boolean;
  };
  rateLimit: { max: number; timeWindowMs: number };
  management: {
    /** Name of the management cluster in logs, status and `/v1/events/{cluster}`. */
    name: string;
    /** Kubeconfig path; absent = in-cluster credentials. */
    kubeconfig?: string;
    context?: string;
  };
  /** Namespaces to watch for Pipelines; empty = all. */
  pipelineNamespaces: readonly string[];
  clusters: readonly ClusterConfig[];
  jwt?: JwtConfig;
  hints: {
    capacity: number;
    perClusterConcurrency: number;
    retryBaseMs: number;
    retryMaxMs: number;
    maxRetries: number;
  };
  resync: { intervalMs: number; jitter: number };
  /** The Lease whose holder runs the periodic resync; timings as in client-go's elector. */
  leaderElection: {
    /** false = every replica runs the periodic resync. */
    enabled: boolean;
    namespace: string;
    name: string;
    /** This replica's holderIdentity. */
    identity: string;
    leaseDurationMs: number;
    renewDeadlineMs: number;
    retryPeriodMs: number;
  };
  /**
   * Absent: this gateway serves every Pipeline. Present: only those `pipelineSelector` matches;
   * leaderElection.name is then already the shard's own Lease (`<name>-<shard name>`).
   */
  sharding?: {
    name: string;
    /** The selector in canonical text form, as the Pipeline LIST and WATCH send it. */
    pipelineSelector: string;
  };
  promotion: {
    retry: RetryPolicy;
    webhooks: Readonly<Record<string, WebhookEndpoint>>;
    pullRequest: PullRequestSettings;
    /** Identifies this replica in promotion claims. */
    instanceId: string;
    /** The operator's promotion windows, compiled at load (docs/policy.md). */
    windows: readonly FleetWindow[];
  };
  authorizations: AuthorizationConfig;
  checks: ChecksSettings;
  notifications: NotificationsConfig;
  trains: TrainsConfig;
  /** The web view (docs/ui.md); absent = not served. */
  ui?: UiConfig;
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
}
