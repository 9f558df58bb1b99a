/**
 * The PromotionAlert custom resource (notifications.promotion-gateway.dev/v1alpha1), as its CRD in manifests/crd declares it.
 */
import { Type } from 'typebox';
import { MapOf, OpenObject, StringEnum } from './kit.js';

/** The event types a PromotionAlert may select, in the order they happen to one revision. */
export const NOTIFICATION_TYPES = [
  'WaitingForApproval',
  'AuthorizationRecorded',
  'PreviewChanged',
  'PromotionStarted',
  'ShadowHold',
  'PromotionSucceeded',
  'PromotionFailed',
  'RollbackStarted',
  'RollbackSucceeded',
  'RollbackFailed',
  'TargetUnhealthy',
  'Drifted',
  'TrainWaiting',
  'TrainPromoted',
  'TrainFailed',
  'EventsMissing',
] as const;

/** PromotionAlert `spec.secretRef`. */
export const AlertSecretRefSchema = Type.Object(
  {
    name: Type.String({
      minLength: 1,
      maxLength: 253,
      pattern: '^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$',
    }),
  },
  {
    description:
      "A Secret in the alert's namespace; keys: address, signingSecret (whsec_ or raw bytes), signingKey (ed25519 private key, PKCS#8 PEM), headers (a YAML or JSON map of extra HTTP headers).",
  },
);

/** PromotionAlert `spec.pipelines[]`. */
export const PipelineSelectorSchema = Type.Object({
  name: Type.Optional(
    Type.String({
      description: "A Pipeline's name; absent means any.",
      minLength: 1,
      maxLength: 253,
      pattern: '^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$',
    }),
  ),
  namespace: Type.Optional(
    Type.String({
      description: "The Pipelines' namespace; absent means the alert's own.",
      minLength: 1,
      maxLength: 63,
      pattern: '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$',
    }),
  ),
  matchLabels: Type.Optional(
    MapOf(
      Type.String({ maxLength: 63, pattern: '^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$' }),
      { description: 'Labels a Pipeline must all carry, with these values.', maxProperties: 32 },
    ),
  ),
});

/** PromotionAlert `spec`. */
export const AlertSpecSchema = Type.Object(
  {
    type: Type.Optional(
      StringEnum(['generic', 'cloudevents', 'cdevents', 'slack', 'msteams'], {
        description:
          'The body sent: generic (Standard Webhooks JSON), cloudevents (CloudEvents 1.0 structured JSON), cdevents (a CDEvent, CloudEvents binary mode), slack or msteams (a chat message).',
        default: 'generic',
      }),
    ),
    address: Type.Optional(
      Type.String({
        description:
          "The receiver's http(s) URL, without credentials. The Secret's `address` key, when present, replaces it (a Slack or Teams webhook URL is itself a secret).",
        format: 'uri',
        maxLength: 2048,
        pattern: '^https?://[^/?#@\\s]+([/?#]\\S*)?$',
      }),
    ),
    secretRef: Type.Optional(AlertSecretRefSchema),
    eventTypes: Type.Optional(
      Type.Array(StringEnum(NOTIFICATION_TYPES), {
        description: 'The event types to send; absent means all.',
        maxItems: 16,
        'x-kubernetes-list-type': 'set',
      }),
    ),
    pipelines: Type.Optional(
      Type.Array(PipelineSelectorSchema, {
        description:
          "The Pipelines whose events are sent, each entry selecting by name and/or labels in a namespace (the alert's own unless the gateway's configuration allows others); absent means every Pipeline of the alert's namespace.",
        maxItems: 64,
      }),
    ),
    template: Type.Optional(
      Type.String({
        description:
          'For type generic only: a logic-less (mustache) template of the body, instead of the standard JSON.',
        maxLength: 16384,
      }),
    ),
    suspend: Type.Optional(
      Type.Boolean({
        description: 'When true, nothing is sent; events are kept and sent once it is false again.',
      }),
    ),
    timeout: Type.Optional(
      Type.String({
        description:
          'How long one delivery may take, as Flux writes durations (ms, s, m), at most 5m.',
        maxLength: 32,
        pattern: '^([0-9]+(\\.[0-9]+)?(ms|s|m))+$',
        default: '15s',
      }),
    ),
  },
  {
    description: 'What to send where.',
    anyOf: [{ required: ['address'] }, { required: ['secretRef'] }],
  },
);

/** PromotionAlert `status.conditions[]`. */
export const AlertConditionSchema = Type.Object({
  lastTransitionTime: Type.String({ format: 'date-time' }),
  message: Type.String({ maxLength: 32768 }),
  observedGeneration: Type.Optional(Type.Integer({ format: 'int64', minimum: 0 })),
  reason: Type.String({
    minLength: 1,
    maxLength: 1024,
    pattern: '^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$',
  }),
  status: StringEnum(['True', 'False', 'Unknown']),
  type: Type.String({
    maxLength: 316,
    pattern:
      '^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])$',
  }),
});

/** PromotionAlert `status.lastDelivery`. */
export const LastDeliverySchema = Type.Object(
  {
    id: Type.String({
      description: "The event's id (the same on every attempt and replica).",
      maxLength: 64,
    }),
    type: Type.String({ description: "The event's type.", maxLength: 64 }),
    time: Type.String({ description: 'When it was sent.', format: 'date-time' }),
    result: Type.String({
      description: 'What came of it, e.g. Delivered or Failed.',
      maxLength: 64,
    }),
  },
  { description: 'The last notification sent, delivered or not.' },
);

/** PromotionAlert `status.counters`. */
export const AlertCountersSchema = Type.Object(
  {
    delivered: Type.Optional(Type.Integer({ format: 'int64', minimum: 0 })),
    failed: Type.Optional(Type.Integer({ format: 'int64', minimum: 0 })),
    superseded: Type.Optional(Type.Integer({ format: 'int64', minimum: 0 })),
    dropped: Type.Optional(Type.Integer({ format: 'int64', minimum: 0 })),
  },
  { description: 'Events since the alert was created, by what came of them.' },
);

/** PromotionAlert `status.streams[]`. */
export const StreamRecordSchema = Type.Object(
  {
    pipeline: Type.String({ description: 'namespace/name of the Pipeline.', maxLength: 317 }),
    environment: Type.String({ maxLength: 253 }),
  },
  { 'x-kubernetes-preserve-unknown-fields': true },
);

/** PromotionAlert `status`. */
export const AlertStatusSchema = Type.Object(
  {
    observedGeneration: Type.Optional(
      Type.Integer({
        description: 'The generation of the spec this status is about.',
        format: 'int64',
      }),
    ),
    conditions: Type.Optional(
      Type.Array(AlertConditionSchema, {
        description: 'Ready says whether the alert is valid and its receiver reachable.',
        maxItems: 8,
        'x-kubernetes-list-type': 'map',
        'x-kubernetes-list-map-keys': ['type'],
      }),
    ),
    lastDelivery: Type.Optional(LastDeliverySchema),
    backlog: Type.Optional(
      Type.Integer({ description: 'Events waiting to be delivered.', format: 'int64', minimum: 0 }),
    ),
    oldestUndelivered: Type.Optional(
      Type.String({
        description: 'When the oldest event waiting to be delivered happened.',
        format: 'date-time',
      }),
    ),
    counters: Type.Optional(AlertCountersSchema),
    streams: Type.Optional(
      Type.Array(StreamRecordSchema, {
        description:
          'The delivery cursor of each (Pipeline, environment) the alert selects; at most 1000.',
        maxItems: 1000,
      }),
    ),
    recent: Type.Optional(
      Type.Array(OpenObject({ 'x-kubernetes-preserve-unknown-fields': true }), {
        description: 'The latest deliveries, newest first; at most 20.',
        maxItems: 20,
      }),
    ),
  },
  {
    description:
      'The delivery state the gateway records (only the replica holding the Lease writes it).',
  },
);

/** PromotionAlert `(the document)`. */
export const PromotionAlertSchema = Type.Object(
  {
    apiVersion: Type.Optional(Type.String()),
    kind: Type.Optional(Type.String()),
    metadata: Type.Optional(OpenObject()),
    spec: Type.Optional(AlertSpecSchema),
    status: Type.Optional(AlertStatusSchema),
  },
  { description: 'PromotionAlert subscribes a receiver to the promotion events of Pipelines.' },
);
