/**
 * The Pipeline `status`: conditions and, per environment, what its targets run and what the gateway
 * recorded.
 */
import { Type } from 'typebox';
import { MapOf, StringEnum } from './kit.js';
import {
  AuthorizationRecordSchema,
  HaltRecordSchema,
  PromotionHistoryEntrySchema,
  PromotionRecordSchema,
  RevisionHoldSchema,
} from './pipeline-records.js';
import { OutboxEventSchema, WaitPreviewSchema } from './pipeline-outbox.js';

/** Pipeline `status.conditions[]`. */
export const ConditionSchema = Type.Object(
  {
    lastTransitionTime: Type.String({
      description:
        'lastTransitionTime is the last time the condition transitioned from one status to another. This should be when the underlying condition changed.  If that is not known, then using the time when the API field changed is acceptable.',
      format: 'date-time',
    }),
    message: Type.String({
      description:
        'message is a human readable message indicating details about the transition. This may be an empty string.',
      maxLength: 32768,
    }),
    observedGeneration: Type.Optional(
      Type.Integer({
        description:
          'observedGeneration represents the .metadata.generation that the condition was set based upon. For instance, if .metadata.generation is currently 12, but the .status.conditions[x].observedGeneration is 9, the condition is out of date with respect to the current state of the instance.',
        format: 'int64',
        minimum: 0,
      }),
    ),
    reason: Type.String({
      description:
        "reason contains a programmatic identifier indicating the reason for the condition's last transition. Producers of specific condition types may define expected values and meanings for this field, and whether the values are considered a guaranteed API. The value should be a CamelCase string. This field may not be empty.",
      maxLength: 1024,
      minLength: 1,
      pattern: '^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$',
    }),
    status: StringEnum(['True', 'False', 'Unknown'], {
      description: 'status of the condition, one of True, False, Unknown.',
    }),
    type: Type.String({
      description:
        'type of condition in CamelCase or in foo.example.com/CamelCase. --- Many .condition.type values are consistent across resources like Available, but because arbitrary conditions can be useful (see .node.status.conditions), the ability to deconflict is important. The regex it matches is (dns1123SubdomainFmt/)?(qualifiedNameFmt)',
      maxLength: 316,
      pattern:
        '^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])$',
    }),
  },
  {
    description:
      'Condition contains details for one aspect of the current state of this API Resource. --- This struct is intended for direct use as an array at the field path .status.conditions.  For example, \n type FooStatus struct{ // Represents the observations of a foo\'s current state. // Known .status.conditions.type are: "Available", "Progressing", and "Degraded" // +patchMergeKey=type // +patchStrategy=merge // +listType=map // +listMapKey=type Conditions []metav1.Condition `json:"conditions,omitempty" patchStrategy:"merge" patchMergeKey:"type" protobuf:"bytes,1,rep,name=conditions"` \n // other fields }',
  },
);

/** Pipeline `status.environments.*.drift`. */
export const DriftRecordSchema = Type.Object(
  {
    promoted: Type.String({ maxLength: 256 }),
    running: Type.Array(Type.String({ maxLength: 256 }), { maxItems: 64 }),
    arrived: Type.Boolean(),
    since: Type.String({ format: 'date-time' }),
  },
  {
    description:
      'Drift is set while the targets run another revision than the last successful promotion: the revision promoted, those running, whether the environment had run the promoted one, and since when the gateway finds it so (a promotion-gateway addition).',
  },
);

/** Pipeline `status.environments.*.healthySince`. */
export const HealthySinceSchema = Type.Object(
  { revision: Type.String(), time: Type.String({ format: 'date-time' }) },
  {
    description:
      'HealthySince is since when every target of this environment has run revision healthy, kept while the next environment soaks (a promotion-gateway addition).',
  },
);

/** Pipeline `status.environments.*.targets[].clusterAppRef.clusterRef`. */
export const ClusterAppClusterRefSchema = Type.Object(
  {
    apiVersion: Type.Optional(Type.String({ description: 'API version of the referent.' })),
    kind: StringEnum(['GitopsCluster'], { description: 'Kind of the referent.' }),
    name: Type.String({ description: 'Name of the referent.' }),
    namespace: Type.Optional(
      Type.String({
        description:
          'Namespace of the referent, defaults to the namespace of the Kubernetes resource object that contains the reference.',
      }),
    ),
  },
  {
    description:
      'CrossNamespaceClusterReference contains enough information to let you locate the typed Kubernetes resource object at cluster level.',
  },
);

/** Pipeline `status.environments.*.targets[].clusterAppRef`. */
export const ClusterAppRefSchema = Type.Object(
  {
    apiVersion: Type.String({ description: 'API version of the referent.' }),
    clusterRef: Type.Optional(ClusterAppClusterRefSchema),
    kind: Type.String({ description: 'Kind of the referent.' }),
    name: Type.String({ description: 'Name of the referent.' }),
  },
  {
    description:
      'ClusterAppRef gives the app object reference, and a cluster reference if in a remote cluster',
  },
);

/** Pipeline `status.environments.*.targets[]`. */
export const TargetStatusRecordSchema = Type.Object(
  {
    clusterAppRef: ClusterAppRefSchema,
    error: Type.Optional(
      Type.String({
        description:
          'Error is set if the application object is not present or not ready, and empty otherwise.',
      }),
    ),
    observedTime: Type.Optional(
      Type.String({
        description:
          'When the gateway read the state this record shows (RFC 3339 with milliseconds); later reads that find the same state leave it, and no replica replaces it with an older observation (a promotion-gateway addition).',
      }),
    ),
    ready: Type.Boolean({
      description:
        'Ready is true if the application object is present and healthy, and false otherwise.',
    }),
    revision: Type.Optional(
      Type.String({
        description:
          'Revision is set if the application object is present and has had a configuration applied, and empty otherwise.',
      }),
    ),
    unannounced: Type.Optional(
      Type.Boolean({
        description:
          'True while this state was found by a resync pass with no Flux event about the object (see the EventsMissing condition); removed once an event about it arrives (a promotion-gateway addition).',
      }),
    ),
  },
  { description: 'TargetStatus represents the status of an application object.' },
);

/** Pipeline `status.environments.*.verified[]`. */
export const VerifiedRecordSchema = Type.Object({
  revision: Type.String({ maxLength: 256 }),
  time: Type.String({ format: 'date-time' }),
});

/** Pipeline `status.environments.*.waitingApproval`. */
export const WaitingApprovalSchema = Type.Object(
  {
    revision: Type.String({ description: 'Revision waiting approval.' }),
    since: Type.Optional(
      Type.String({
        description:
          'Since is when the gateway first found the environment waiting for this revision (a promotion-gateway addition).',
        format: 'date-time',
      }),
    ),
    previewChanged: Type.Optional(
      Type.Array(
        Type.Object({
          principal: Type.String({ maxLength: 512 }),
          digest: Type.Optional(
            Type.String({
              maxLength: 128,
              description:
                'Digest is the preview digest the approval that stopped counting was bound to: an approver who approves again and sees the change move again gets a new entry.',
            }),
          ),
          since: Type.String({ format: 'date-time' }),
        }),
        {
          description:
            'PreviewChanged lists the approvers of this revision whose approval stopped counting while it waited, because the change it was bound to (its preview digest) is no longer the change the promotion would make, and since when the gateway knew (a promotion-gateway addition). Kept until the wait ends: what the PreviewChanged event tells.',
          maxItems: 32,
        },
      ),
    ),
    preview: Type.Optional(
      Type.Object(WaitPreviewSchema.properties, {
        description:
          'Preview is the change the promotion would make, as previewed when the wait began (a promotion-gateway addition): what the WaitingForApproval event tells. Absent when it could not be known then.',
      }),
    ),
  },
  {
    description:
      "WaitingApproval holds the environment revision that's currently waiting approval.",
  },
);

/** Pipeline `status.environments.*`. */
export const EnvironmentStatusSchema = Type.Object({
  approvals: Type.Optional(
    Type.Array(AuthorizationRecordSchema, {
      description:
        'Approvals records the authorizations (approvals, rejections, CI triggers) of the current and previous revision and any whose credential has not expired (a promotion-gateway addition).',
      maxItems: 256,
    }),
  ),
  drift: Type.Optional(DriftRecordSchema),
  healthySince: Type.Optional(HealthySinceSchema),
  holds: Type.Optional(
    Type.Array(RevisionHoldSchema, {
      description:
        'Holds are the revisions this environment does not take: rolled back from, or failed verification (a promotion-gateway addition).',
      maxItems: 20,
    }),
  ),
  history: Type.Optional(
    Type.Array(PromotionHistoryEntrySchema, {
      description:
        'History holds the latest promotions of this environment, oldest first, one entry per revision (a promotion-gateway addition).',
      maxItems: 20,
    }),
  ),
  promotion: Type.Optional(PromotionRecordSchema),
  targets: Type.Optional(Type.Array(TargetStatusRecordSchema)),
  verified: Type.Optional(
    Type.Array(VerifiedRecordSchema, {
      description:
        'Verified holds when each revision was first verified in this environment, every target ready at it, oldest first, the earliest observation kept (a promotion-gateway addition).',
      maxItems: 20,
    }),
  ),
  waitingApproval: Type.Optional(WaitingApprovalSchema),
});

/** Pipeline `status`. */
export const PipelineStatusSchema = Type.Object(
  {
    conditions: Type.Optional(
      Type.Array(ConditionSchema, {
        description: 'Conditions holds the conditions for the Pipeline.',
      }),
    ),
    environments: Type.Optional(
      MapOf(EnvironmentStatusSchema, { description: 'Environments holds environment statuses.' }),
    ),
    halts: Type.Optional(
      Type.Array(HaltRecordSchema, {
        description:
          'Halts are the stop-the-line halts; each holds the promotions of its environment (of every environment when none is named) until lifted or expired. A lifted or expired halt whose credential has not expired is kept (a lifted one as a tombstone, liftedAt and liftedBy set), holding nothing, so that its credential cannot halt again (a promotion-gateway addition).',
        maxItems: 128,
      }),
    ),
    outbox: Type.Optional(
      Type.Array(OutboxEventSchema, {
        description:
          'Outbox holds the notification events the Pipeline owes its subscribers, each recorded with its whole body in the status write that first recorded the fact it tells, oldest first; delivered from here to every PromotionAlert that selects it (a promotion-gateway addition).',
        maxItems: 1000,
      }),
    ),
    observedGeneration: Type.Optional(
      Type.Integer({
        description: 'ObservedGeneration is the last observed generation.',
        format: 'int64',
      }),
    ),
  },
  { default: { observedGeneration: -1 } },
);
