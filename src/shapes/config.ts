/**
 * The configuration file (schemas/config.schema.json) as a whole: its sections, before defaults and
 * secrets.
 */
import { Type } from 'typebox';
import { Ref } from './kit.js';
import {
  HintsInputSchema,
  LeaderElectionInputSchema,
  ManagementInputSchema,
  RateLimitInputSchema,
  ResyncInputSchema,
  ServerInputSchema,
  ShardingInputSchema,
  UiInputSchema,
} from './config-runtime.js';
import { DnsLabelSchema } from './config-common.js';
import { ClusterInputSchema, JwtInputSchema } from './config-identity.js';
import {
  ChecksInputSchema,
  NotificationsInputSchema,
  PromotionInputSchema,
} from './config-promotion.js';
import { TrainsInputSchema } from './config-trains.js';
import { ApprovalsInputSchema, CiInputSchema } from './config-approvals.js';

/** Configuration `(the document)`. */
export const ConfigInputSchema = Type.Object(
  {
    $schema: Type.Optional(
      Type.String({ description: 'Optional pointer to this schema, for editors.' }),
    ),
    server: Type.Optional(ServerInputSchema),
    rateLimit: Type.Optional(RateLimitInputSchema),
    management: Type.Optional(ManagementInputSchema),
    pipelineNamespaces: Type.Optional(
      Type.Array(Ref<typeof DnsLabelSchema>('dnsLabel'), {
        description: 'Namespaces to watch for Pipelines; empty = all namespaces.',
        uniqueItems: true,
        default: [],
      }),
    ),
    clusters: Type.Optional(
      Type.Array(Ref<typeof ClusterInputSchema>('cluster'), {
        description:
          'Clusters whose Flux may post events, and the credentials that speak for each.',
        default: [],
      }),
    ),
    jwt: Type.Optional(Ref<typeof JwtInputSchema>('jwt')),
    hints: Type.Optional(HintsInputSchema),
    resync: Type.Optional(ResyncInputSchema),
    leaderElection: Type.Optional(LeaderElectionInputSchema),
    sharding: Type.Optional(ShardingInputSchema),
    promotion: Type.Optional(PromotionInputSchema),
    approvals: Type.Optional(ApprovalsInputSchema),
    ci: Type.Optional(CiInputSchema),
    checks: Type.Optional(ChecksInputSchema),
    notifications: Type.Optional(NotificationsInputSchema),
    trains: Type.Optional(TrainsInputSchema),
    ui: Type.Optional(UiInputSchema),
    logLevel: Type.Optional(
      Type.Enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], {
        default: 'info',
      }),
    ),
  },
  { additionalProperties: false },
);
