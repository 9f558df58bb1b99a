/**
 * The configuration file's own shape (schemas/config.schema.json), before defaults and secret
 * resolution. Code that builds a config without a file (demo, tests) writes one of these.
 */
import type { PullRequestSettings } from './gateway-config.js';
import type { PromotionWindowSpec } from '../pipeline/pipeline-resource.js';

/** An operator's promotion window: a Pipeline window's fields plus the environments it covers. */
export type PromotionWindowInput = PromotionWindowSpec & { environments?: string[] };

/** Where a secret comes from: exactly one of an inline value, a file's exact bytes, or an env var. */
export type SecretSource = { value: string } | { file: string } | { env: string };

/** `sharding`: this gateway serves one shard of a fleet (docs/operations.md, Sharding). */
export interface ShardingInput {
  name: string;
  /** A label selector in kubectl's text form. */
  pipelineSelector: string;
}

/** One cluster entry as written in the file. */
export interface ClusterInput {
  name: string;
  gitopsCluster?: { namespace: string; name: string };
  hmacKeys?: SecretSource[];
  jwtSubjects?: string[];
}

/** JWT settings as written in the file; jwksUrl or publicKeys (or both) must be set. */
export interface JwtInput {
  issuer: string;
  audience: string;
  algorithms: string[];
  jwksUrl?: string;
  publicKeys?: SecretSource[];
  clockToleranceSeconds?: number;
  maxTokenAgeSeconds?: number;
}

/** A webhook endpoint as written in the file. */
export interface WebhookInput {
  url: string;
  secret?: SecretSource;
  timeoutMs?: number;
}

/** An OIDC issuer as written in the file (SSO for people, or a CI provider with a name). */
export interface OidcIssuerInput {
  name?: string;
  issuer: string;
  audience: string;
  jwksUrl: string;
  algorithms?: string[];
  maxTokenAgeSeconds?: number;
  clockToleranceSeconds?: number;
}

/** A person who may approve, as written in the file. */
export interface ApproverInput {
  name: string;
  publicKeys?: SecretSource[];
  oidcSubjects?: string[];
  groups?: string[];
}

/** A floor for environments of one name, as written in the file. */
export interface FloorInput {
  environment: string;
  minApprovals?: number;
  minHumanApprovals?: number;
  approvers?: string[];
}

/** A CI policy as written in the file. */
export interface CiPolicyInput {
  name: string;
  issuer: string;
  claims: Record<string, string>;
  pipelines: string[];
  environments: string[];
}

/** The whole file; every field is optional where the schema has a default. */
export interface ConfigInput {
  $schema?: string;
  server?: {
    host?: string;
    port?: number;
    bodyLimitBytes?: number;
    requestTimeoutMs?: number;
    metricsPort?: number;
    trustProxy?: boolean;
  };
  rateLimit?: { max?: number; timeWindowMs?: number };
  management?: { name?: string; kubeconfig?: string; context?: string };
  pipelineNamespaces?: string[];
  clusters?: ClusterInput[];
  jwt?: JwtInput;
  hints?: {
    capacity?: number;
    perClusterConcurrency?: number;
    retryBaseMs?: number;
    retryMaxMs?: number;
    maxRetries?: number;
  };
  resync?: { intervalMs?: number; jitter?: number };
  leaderElection?: {
    enabled?: boolean;
    namespace?: string;
    name?: string;
    identity?: string;
    leaseDurationMs?: number;
    renewDeadlineMs?: number;
    retryPeriodMs?: number;
  };
  sharding?: ShardingInput;
  promotion?: {
    retry?: {
      maxAttempts?: number;
      backoffBaseMs?: number;
      backoffMaxMs?: number;
      claimTimeoutMs?: number;
    };
    webhooks?: Record<string, WebhookInput>;
    pullRequest?: {
      author?: { name?: string; email?: string };
      commitMessage?: string;
      allowedHosts?: string[];
      allowPlainHttp?: boolean;
      gitTimeoutMs?: number;
      apiTimeoutMs?: number;
      attemptTimeoutMs?: number;
      refreshIntervalMs?: number;
    };
    instanceId?: string;
    windows?: PromotionWindowInput[];
  };
  approvals?: {
    approvers?: ApproverInput[];
    oidc?: OidcIssuerInput;
    groupsClaim?: string;
    maxStatementLifetimeSeconds?: number;
    clockToleranceSeconds?: number;
    floors?: FloorInput[];
    legacyEndpoint?: boolean;
    breakGlass?: { minApprovals?: number; approvers?: string[]; validForSeconds?: number };
  };
  ci?: { issuers?: OidcIssuerInput[]; policies?: CiPolicyInput[] };
  checks?: { maxConcurrent?: number; http?: { allowedUrlPrefixes?: string[] } };
  notifications?: {
    crossNamespace?: boolean | string[];
    allowedUrlPrefixes?: string[];
    enabled?: boolean;
    intervalMs?: number;
    retryBaseMs?: number;
    retryMaxMs?: number;
    horizonMs?: number;
  };
  ui?: { port: number; anonymous?: boolean; maxStreams?: number };
  logLevel?: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
}

/** Makes the listed keys of T required (the schema's defaults have filled them in). */
type With<T, K extends keyof T> = Omit<T, K> & Required<Pick<T, K>>;

/** A ConfigInput after schema validation with defaults applied: defaulted fields are present. */
export interface CheckedInput {
  server: Required<NonNullable<ConfigInput['server']>>;
  rateLimit: Required<NonNullable<ConfigInput['rateLimit']>>;
  management: With<NonNullable<ConfigInput['management']>, 'name'>;
  pipelineNamespaces: string[];
  clusters: With<ClusterInput, 'hmacKeys' | 'jwtSubjects'>[];
  jwt?: With<JwtInput, 'clockToleranceSeconds' | 'maxTokenAgeSeconds'>;
  hints: Required<NonNullable<ConfigInput['hints']>>;
  resync: Required<NonNullable<ConfigInput['resync']>>;
  leaderElection: With<
    NonNullable<ConfigInput['leaderElection']>,
    'enabled' | 'name' | 'leaseDurationMs' | 'renewDeadlineMs' | 'retryPeriodMs'
  >;
  sharding?: ShardingInput;
  promotion: {
    retry: Required<NonNullable<NonNullable<ConfigInput['promotion']>['retry']>>;
    webhooks: Record<string, With<WebhookInput, 'timeoutMs'>>;
    pullRequest: PullRequestSettings;
    instanceId?: string;
    windows: (PromotionWindowSpec & { environments: string[] })[];
  };
  approvals: {
    approvers: With<ApproverInput, 'groups'>[];
    oidc?: Required<Omit<OidcIssuerInput, 'name'>>;
    groupsClaim: string;
    maxStatementLifetimeSeconds: number;
    clockToleranceSeconds: number;
    floors: Required<FloorInput>[];
    legacyEndpoint: boolean;
    breakGlass: { minApprovals: number; approvers: string[]; validForSeconds: number };
  };
  ci: { issuers: Required<OidcIssuerInput>[]; policies: CiPolicyInput[] };
  checks: { maxConcurrent: number; http: { allowedUrlPrefixes: string[] } };
  notifications: Required<NonNullable<ConfigInput['notifications']>>;
  ui?: Required<NonNullable<ConfigInput['ui']>>;
  logLevel: NonNullable<ConfigInput['logLevel']>;
}
