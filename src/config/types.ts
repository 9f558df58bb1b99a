/**
 * The gateway's configuration after validation against schemas/config.schema.json and secret
 * resolution. Built once at start by loadConfig() and frozen; nothing else reads process.env.
 */
import type { RetryPolicy } from '../evaluate/types.js';

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
}

/** A named outbound endpoint for the `webhook` promotion strategy. */
export interface WebhookEndpoint {
  url: string;
  /** Standard Webhooks signing secret; absent = unsigned. */
  secret?: SecretBytes;
  timeoutMs: number;
}

/** The whole, frozen configuration. */
export interface GatewayConfig {
  server: {
    host: string;
    port: number;
    bodyLimitBytes: number;
    requestTimeoutMs: number;
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
  promotion: {
    retry: RetryPolicy;
    webhooks: Readonly<Record<string, WebhookEndpoint>>;
    /** Identifies this replica in promotion claims. */
    instanceId: string;
  };
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
}
