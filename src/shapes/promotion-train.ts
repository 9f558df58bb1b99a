/**
 * The PromotionTrain custom resource (pipelines.promotion-gateway.dev/v1alpha1), as its CRD in
 * manifests/crd declares it: Pipelines of one namespace promoted together, one combination of
 * their revisions at a time (docs/policy.md, "Release trains").
 */
import { Type } from 'typebox';
import { MapOf, OpenObject, StringEnum } from './kit.js';
import { AlertConditionSchema } from './promotion-alert.js';

const NAME_PATTERN = '^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$';

/** The longest train: every member is evaluated together on each of the train's passes. */
export const MAX_TRAIN_MEMBERS = 32;

/** How many combinations verified together each environment's status keeps, newest first. */
export const MAX_OBSERVED_COMBINATIONS = 10;

/** The states of a train's release into one environment, in the order they happen. */
export const RELEASE_STATES = ['Waiting', 'Promoting', 'Succeeded', 'Failed'] as const;

/** A member as the train names it: a Pipeline of its namespace, or `namespace/name`. */
const MEMBER_PATTERN = `^([a-z0-9]([-a-z0-9]*[a-z0-9])?/)?${NAME_PATTERN.slice(1)}`;

const MemberName = Type.String({ minLength: 1, maxLength: 317, pattern: MEMBER_PATTERN });

/** PromotionTrain `spec.members[]`. */
export const TrainMemberSchema = Type.Object({
  name: Type.String({
    description:
      "A Pipeline of the train's namespace, or `namespace/name` of another namespace's where the gateway's configuration allows it (trains.crossNamespace).",
    minLength: 1,
    maxLength: 317,
    pattern: MEMBER_PATTERN,
  }),
  dependsOn: Type.Optional(
    Type.Array(MemberName, {
      description:
        'Members promoted into an environment before this one: it is promoted only once each of them is verified healthy there at its release revision.',
      maxItems: MAX_TRAIN_MEMBERS,
      'x-kubernetes-list-type': 'set',
    }),
  ),
});

/** PromotionTrain `spec.selector`. */
export const TrainSelectorSchema = Type.Object(
  {
    matchLabels: MapOf(
      Type.String({ maxLength: 63, pattern: '^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$' }),
      {
        description: 'Labels a Pipeline must all carry, with these values.',
        minProperties: 1,
        maxProperties: 32,
      },
    ),
  },
  { description: "The members: every Pipeline of the train's namespace with these labels." },
);

/** PromotionTrain `spec`. */
export const TrainSpecSchema = Type.Object(
  {
    members: Type.Optional(
      Type.Array(TrainMemberSchema, {
        description: 'The member Pipelines by name, with the order among them (dependsOn).',
        minItems: 1,
        maxItems: MAX_TRAIN_MEMBERS,
        'x-kubernetes-list-type': 'map',
        'x-kubernetes-list-map-keys': ['name'],
      }),
    ),
    selector: Type.Optional(TrainSelectorSchema),
    environments: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 253 }), {
        description:
          "The environments the train gates; absent means every environment all members share, except any member's first (its source).",
        maxItems: 32,
        'x-kubernetes-list-type': 'set',
      }),
    ),
    suspend: Type.Optional(
      Type.Boolean({
        description:
          'When true, the train starts no release; its members stay held where it gates them.',
      }),
    ),
    rollbackOnFailure: Type.Optional(
      Type.Boolean({
        description:
          'When true, a release that fails rolls back each member it promoted into the environment to the revision that member ran before (default false: they keep the release revision).',
      }),
    ),
  },
  {
    description: 'Which Pipelines travel together, and where.',
    oneOf: [{ required: ['members'] }, { required: ['selector'] }],
  },
);

/** A member -> revision map: one combination of the members' revisions. */
export const CombinationMembersSchema = MapOf(Type.String({ maxLength: 256 }), {
  description: "Each member's revision, by member name.",
  maxProperties: MAX_TRAIN_MEMBERS,
});

/** PromotionTrain `status.environments[].observed[]`. */
export const ObservedCombinationSchema = Type.Object({
  digest: Type.String({
    description: "sha256: and 64 hex digits, over the members' revisions as canonical JSON.",
    maxLength: 71,
  }),
  members: CombinationMembersSchema,
  observedAt: Type.String({
    description:
      "When the gateway saw every member healthy at its revision in the environment's upstream.",
    format: 'date-time',
  }),
});

/** PromotionTrain `status.environments[].release`. */
export const TrainReleaseSchema = Type.Object(
  {
    digest: Type.String({ maxLength: 71 }),
    members: CombinationMembersSchema,
    state: StringEnum(RELEASE_STATES),
    startedAt: Type.String({ format: 'date-time' }),
    finishedAt: Type.Optional(
      Type.String({
        format: 'date-time',
        description: 'When its promotion ended (Succeeded or Failed); absent if it never promoted.',
      }),
    ),
    waitingFor: Type.Optional(
      Type.Array(Type.String({ maxLength: 317 }), {
        description: 'The members whose own gates or order hold the release.',
        maxItems: MAX_TRAIN_MEMBERS,
      }),
    ),
    reason: Type.Optional(Type.String({ maxLength: 64 })),
    message: Type.Optional(Type.String({ maxLength: 1024 })),
    rolledBack: Type.Optional(
      Type.Array(MemberName, {
        description:
          'After a failure with spec.rollbackOnFailure: the members rolled back from their release revision.',
        maxItems: MAX_TRAIN_MEMBERS,
      }),
    ),
  },
  { description: 'The combination being (or last) promoted into the environment.' },
);

/** How many notification events a train's status keeps (`status.outbox`), the oldest going first. */
export const MAX_TRAIN_OUTBOX = 100;

/** PromotionTrain `status.outbox[].train.failed[]`: a member whose promotion failed, and why. */
export const FailedMemberSchema = Type.Object({
  member: MemberName,
  revision: Type.String({ maxLength: 256 }),
  reason: Type.String({ maxLength: 1024 }),
});

/** PromotionTrain `status.outbox[].train`: the release an event tells of. */
export const TrainEventDetailsSchema = Type.Object({
  digest: Type.String({ maxLength: 71 }),
  members: CombinationMembersSchema,
  failed: Type.Optional(Type.Array(FailedMemberSchema, { maxItems: MAX_TRAIN_MEMBERS })),
  stopped: Type.Optional(
    Type.Array(MemberName, {
      description: 'Members the failure stopped before their promotion started.',
      maxItems: MAX_TRAIN_MEMBERS,
    }),
  ),
  waitingFor: Type.Optional(
    Type.Array(MemberName, {
      description: 'For TrainWaiting: the members whose own gates hold the release.',
      maxItems: MAX_TRAIN_MEMBERS,
    }),
  ),
});

/**
 * PromotionTrain `status.outbox[]`: a notification event the train owes its subscribers (the
 * PromotionAlerts that select one of its members), recorded with its whole body by the status
 * write that ended the release it tells of (docs/notifications.md, "Events").
 */
export const TrainOutboxEventSchema = Type.Object({
  type: Type.String({ maxLength: 63 }),
  environment: Type.String({ maxLength: 253 }),
  revision: Type.String({ description: "The combination's digest.", maxLength: 256 }),
  subject: Type.String({ maxLength: 512 }),
  time: Type.String({ format: 'date-time' }),
  reason: Type.String({ maxLength: 1024 }),
  message: Type.String({ maxLength: 2048 }),
  severity: StringEnum(['info', 'error']),
  train: TrainEventDetailsSchema,
});

/** PromotionTrain `status.environments[]`. */
export const TrainEnvironmentSchema = Type.Object({
  name: Type.String({ maxLength: 253 }),
  observed: Type.Optional(
    Type.Array(ObservedCombinationSchema, {
      description: 'Combinations verified together upstream, newest first.',
      maxItems: MAX_OBSERVED_COMBINATIONS,
    }),
  ),
  release: Type.Optional(TrainReleaseSchema),
});

/** PromotionTrain `status`. */
export const TrainStatusSchema = Type.Object(
  {
    observedGeneration: Type.Optional(Type.Integer({ format: 'int64' })),
    conditions: Type.Optional(
      Type.Array(AlertConditionSchema, {
        description: 'Ready says whether the train is valid and its members found.',
        maxItems: 8,
        'x-kubernetes-list-type': 'map',
        'x-kubernetes-list-map-keys': ['type'],
      }),
    ),
    members: Type.Optional(
      Type.Array(MemberName, {
        description: 'The member Pipelines found, as the spec names them.',
        maxItems: MAX_TRAIN_MEMBERS,
      }),
    ),
    environments: Type.Optional(
      Type.Array(TrainEnvironmentSchema, {
        description: 'Per gated environment: what was verified together upstream, the release.',
        maxItems: 32,
      }),
    ),
    outbox: Type.Optional(
      Type.Array(TrainOutboxEventSchema, {
        description:
          'The notification events the train owes (TrainWaiting, TrainPromoted, TrainFailed), oldest first.',
        maxItems: MAX_TRAIN_OUTBOX,
      }),
    ),
  },
  { description: 'What the gateway records (only the replica holding the Lease writes it).' },
);

/** PromotionTrain `(the document)`. */
export const PromotionTrainSchema = Type.Object(
  {
    apiVersion: Type.Optional(Type.String()),
    kind: Type.Optional(Type.String()),
    metadata: Type.Optional(OpenObject()),
    spec: Type.Optional(TrainSpecSchema),
    status: Type.Optional(TrainStatusSchema),
  },
  {
    description:
      'PromotionTrain promotes several Pipelines as one: only a combination of their revisions verified together upstream.',
  },
);
