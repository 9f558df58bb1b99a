/**
 * The configuration file's own shape, before defaults and secret resolution: the types of the
 * declarations in src/shapes, which schemas/config.schema.json is generated from. Code that
 * builds a config without a file (demo, tests) writes one of these.
 */
import type { Static } from 'typebox';
import type { PullRequestSettings } from './gateway-config.js';
import type { PromotionWindowSpec } from '../pipeline/pipeline-resource.js';
import type {
  ApproverInputSchema,
  CiIssuerInputSchema,
  CiPolicyInputSchema,
  FloorInputSchema,
  OidcIssuerInputSchema,
} from '../shapes/config-approvals.js';
import type { PromotionWindowInputSchema, SecretSourceSchema } from '../shapes/config-common.js';
import type { ClusterInputSchema, JwtInputSchema } from '../shapes/config-identity.js';
import type { WebhookInputSchema } from '../shapes/config-promotion.js';
import type { ShardingInputSchema } from '../shapes/config-runtime.js';
import type { ConfigInputSchema } from '../shapes/config.js';

/** An operator's promotion window: a Pipeline window's fields plus the environments it covers. */
export type PromotionWindowInput = Static<typeof PromotionWindowInputSchema>;

/** Where a secret comes from: exactly one of an inline value, a file's exact bytes, or an env var. */
export type SecretSource = Static<typeof SecretSourceSchema>;

/** `sharding`: this gateway serves one shard of a fleet (docs/operations.md, Sharding). */
export type ShardingInput = Static<typeof ShardingInputSchema>;

/** One cluster entry as written in the file. */
export type ClusterInput = Static<typeof ClusterInputSchema>;

/** JWT settings as written in the file; jwksUrl or publicKeys (or both) must be set. */
export type JwtInput = Static<typeof JwtInputSchema>;

/** A webhook endpoint as written in the file. */
export type WebhookInput = Static<typeof WebhookInputSchema>;

/** An OIDC issuer as written in the file (SSO for people, or a CI provider with a name). */
export type OidcIssuerInput = Static<typeof OidcIssuerInputSchema>;

/** A person who may approve, as written in the file. */
export type ApproverInput = Static<typeof ApproverInputSchema>;

/** A floor for environments of one name, as written in the file. */
export type FloorInput = Static<typeof FloorInputSchema>;

/** A CI provider as written in the file: an OIDC issuer with a name policies refer to. */
export type CiIssuerInput = Static<typeof CiIssuerInputSchema>;

/** A CI policy as written in the file. */
export type CiPolicyInput = Static<typeof CiPolicyInputSchema>;

/** The whole file; every field is optional where the schema has a default. */
export type ConfigInput = Static<typeof ConfigInputSchema>;

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
  ci: { issuers: Required<CiIssuerInput>[]; policies: CiPolicyInput[] };
  checks: { maxConcurrent: number; http: { allowedUrlPrefixes: string[] } };
  notifications: Required<NonNullable<ConfigInput['notifications']>>;
  trains: Required<NonNullable<ConfigInput['trains']>>;
  ui?: With<NonNullable<ConfigInput['ui']>, 'anonymous' | 'maxStreams'>;
  logLevel: NonNullable<ConfigInput['logLevel']>;
}
