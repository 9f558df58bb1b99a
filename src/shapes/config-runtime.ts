/**
 * How the gateway runs, as the configuration file declares it: server, rate limit, management
 * cluster, hints, resync, leader election, sharding, web view.
 */
import { Type } from 'typebox';
import { Ref } from './kit.js';
import { DnsLabelSchema } from './config-common.js';

/** Configuration `server`. */
export const ServerInputSchema = Type.Object(
  {
    host: Type.Optional(Type.String({ minLength: 1, default: '0.0.0.0' })),
    port: Type.Optional(Type.Integer({ minimum: 0, maximum: 65535, default: 8080 })),
    bodyLimitBytes: Type.Optional(Type.Integer({ minimum: 1, maximum: 16777216, default: 65536 })),
    requestTimeoutMs: Type.Optional(Type.Integer({ minimum: 1, default: 10000 })),
    metricsPort: Type.Optional(
      Type.Integer({
        description:
          'When set, GET /metrics is served on this port only (same host), not on the port Flux and approvers reach.',
        minimum: 0,
        maximum: 65535,
      }),
    ),
    trustProxy: Type.Optional(Type.Boolean({ default: false })),
  },
  { description: 'The HTTP listener.', additionalProperties: false, default: {} },
);

/** Configuration `rateLimit`. */
export const RateLimitInputSchema = Type.Object(
  {
    max: Type.Optional(Type.Integer({ minimum: 1, default: 300 })),
    timeWindowMs: Type.Optional(Type.Integer({ minimum: 1, default: 60000 })),
  },
  {
    description: 'Per-client request rate limit (@fastify/rate-limit).',
    additionalProperties: false,
    default: {},
  },
);

/** Configuration `management`. */
export const ManagementInputSchema = Type.Object(
  {
    name: Type.Optional(
      Type.String({
        maxLength: 63,
        pattern: '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$',
        default: 'management',
      }),
    ),
    kubeconfig: Type.Optional(Type.String({ minLength: 1 })),
    context: Type.Optional(Type.String({ minLength: 1 })),
  },
  {
    description: 'The management cluster, where Pipelines and GitopsClusters live.',
    additionalProperties: false,
    default: {},
  },
);

/** Configuration `hints`. */
export const HintsInputSchema = Type.Object(
  {
    capacity: Type.Optional(Type.Integer({ minimum: 1, default: 10000 })),
    perClusterConcurrency: Type.Optional(Type.Integer({ minimum: 1, default: 4 })),
    retryBaseMs: Type.Optional(Type.Integer({ minimum: 1, default: 500 })),
    retryMaxMs: Type.Optional(Type.Integer({ minimum: 1, default: 60000 })),
    maxRetries: Type.Optional(Type.Integer({ minimum: 0, default: 8 })),
  },
  {
    description: 'The bounded queue of untrusted hints (look at object K in cluster C).',
    additionalProperties: false,
    default: {},
  },
);

/** Configuration `resync`. */
export const ResyncInputSchema = Type.Object(
  {
    intervalMs: Type.Optional(Type.Integer({ minimum: 1, default: 300000 })),
    jitter: Type.Optional(Type.Number({ minimum: 0, maximum: 1, default: 0.1 })),
  },
  {
    description: "The periodic full re-read of every pipeline's targets.",
    additionalProperties: false,
    default: {},
  },
);

/** Configuration `leaderElection`. */
export const LeaderElectionInputSchema = Type.Object(
  {
    enabled: Type.Optional(Type.Boolean({ default: true })),
    namespace: Type.Optional(
      Ref<typeof DnsLabelSchema>('dnsLabel', {
        description: 'Namespace of the Lease; default flux-system.',
      }),
    ),
    name: Type.Optional(
      Type.String({
        maxLength: 253,
        pattern: '^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$',
        default: 'promotion-gateway-resync',
      }),
    ),
    identity: Type.Optional(
      Type.String({
        description: "This replica's holderIdentity; default hostname plus 6 random hex digits.",
        minLength: 1,
        maxLength: 253,
      }),
    ),
    leaseDurationMs: Type.Optional(
      Type.Integer({ minimum: 1000, multipleOf: 1000, default: 15000 }),
    ),
    renewDeadlineMs: Type.Optional(Type.Integer({ minimum: 1, default: 10000 })),
    retryPeriodMs: Type.Optional(Type.Integer({ minimum: 1, default: 2000 })),
  },
  {
    description:
      'Which replica runs the periodic resync: the holder of a coordination.k8s.io/v1 Lease in the management cluster. Every replica serves HTTP and handles events.',
    additionalProperties: false,
    default: {},
  },
);

/** Configuration `sharding`. */
export const ShardingInputSchema = Type.Object(
  {
    name: Ref<typeof DnsLabelSchema>('dnsLabel', {
      description: "The shard's name: in its Lease's name, logs and metrics.",
    }),
    pipelineSelector: Type.String({
      description:
        "A Kubernetes label selector in kubectl's text form, e.g. promotion-gateway.io/shard=eu, or !promotion-gateway.io/shard for the Pipelines no shard claims.",
      minLength: 1,
      maxLength: 1024,
    }),
  },
  {
    description:
      "Run this gateway as one shard of a fleet: it serves only the Pipelines its selector matches, and its resync Lease is leaderElection.name plus '-' plus the shard's name. Absent: it serves every Pipeline (docs/operations.md, Sharding).",
    additionalProperties: false,
  },
);

/** Configuration `ui`. */
export const UiInputSchema = Type.Object(
  {
    port: Type.Integer({
      description: "The view's own port (on server.host); 0 picks a free one.",
      minimum: 0,
      maximum: 65535,
    }),
    anonymous: Type.Optional(
      Type.Boolean({
        description:
          'Demo only: anyone who reaches the port sees every Pipeline, without a token. Otherwise each request needs a bearer JWT (jwt) whose pipelines claim names what it may see.',
        default: false,
      }),
    ),
    externalUrl: Type.Optional(
      Type.String({
        description:
          "The address people reach the view at (its Ingress or Gateway route), e.g. https://promotions.example.com. Notifications link to its pages (a WaitingForApproval event to the pending change's preview); absent, they name the API path only.",
        format: 'uri',
        pattern: '^https?://[^?#]*$',
        maxLength: 1024,
      }),
    ),
    maxStreams: Type.Optional(
      Type.Integer({
        description:
          'Live-update streams open at once on this replica; more are refused with 429 until one closes.',
        minimum: 1,
        maximum: 10000,
        default: 256,
      }),
    ),
  },
  {
    description:
      'The web view (docs/ui.md): read-only pages of the fleet and each Pipeline on a port of their own, served from the watched Pipelines by every replica. Absent: not served.',
    additionalProperties: false,
  },
);
