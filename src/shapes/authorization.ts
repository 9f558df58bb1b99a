/**
 * The bodies and parameters of the authorization routes (approvals, promotions, halts), as fastify
 * validates them (schemas/authorization.schema.json).
 */
import { Type } from 'typebox';
import { MapOf, OneOf, Ref } from './kit.js';
import type { NameSchema, NamespaceSchema } from './routes.js';

/** Authorization request `definitions.revision`. */
export const RevisionSchema = Type.String({ minLength: 1, maxLength: 256 });

/** Authorization request `definitions.previewDigest`: a preview's digest (docs/api.md). */
export const PreviewDigestSchema = Type.String({
  description: "The digest of the previewed change the approver saw: 'sha256:' and 64 hex digits.",
  pattern: '^sha256:[0-9a-f]{64}$',
  maxLength: 71,
});

/** Authorization request `definitions.combinationDigest`: a train's combination (docs/api.md). */
export const CombinationDigestSchema = Type.String({
  description:
    "The digest of the release train's combination approved, as its status names it: 'sha256:' and 64 hex digits.",
  pattern: '^sha256:[0-9a-f]{64}$',
  maxLength: 71,
});

/** Authorization request `definitions.reason`. */
export const ReasonSchema = Type.String({
  description: "A break-glass authorization's reason: some text besides spaces.",
  minLength: 1,
  maxLength: 1024,
  pattern: '\\S',
  format: 'plain-text',
});

/** Authorization request `definitions.approval`. */
export const ApprovalBodySchema = Type.Object(
  {
    revision: Ref<typeof RevisionSchema>('revision'),
    decision: Type.Enum(['approve', 'reject', 'break-glass']),
    comment: Type.Optional(Type.String({ maxLength: 1024, format: 'plain-text' })),
    previewDigest: Type.Optional(Ref<typeof PreviewDigestSchema>('previewDigest')),
  },
  {
    additionalProperties: false,
    if: { properties: { decision: { const: 'break-glass' } } },
    then: { required: ['comment'], properties: { comment: { $ref: '#/definitions/reason' } } },
  },
);

/** Authorization request `definitions.trainApproval`: a person's approval of a train's combination. */
export const TrainApprovalBodySchema = Type.Object(
  {
    combinationDigest: Ref<typeof CombinationDigestSchema>('combinationDigest'),
    decision: Type.Enum(['approve', 'reject']),
    comment: Type.Optional(Type.String({ maxLength: 1024, format: 'plain-text' })),
  },
  { additionalProperties: false },
);

/** Authorization request `definitions.halt`. */
export const HaltBodySchema = Type.Object(
  {
    environment: Type.Optional(Type.String({ minLength: 1, maxLength: 253 })),
    reason: Type.String({ minLength: 1, maxLength: 1024, format: 'plain-text' }),
    expiresAt: Type.Optional(Type.String({ format: 'date-time', maxLength: 64 })),
  },
  { additionalProperties: false },
);

/** Authorization request `definitions.labelSelector` (structured) `matchExpressions[]`. */
export const MatchExpressionSchema = Type.Object(
  {
    key: Type.String({ minLength: 1, maxLength: 317 }),
    operator: Type.Enum(['In', 'NotIn', 'Exists', 'DoesNotExist']),
    values: Type.Optional(Type.Array(Type.String({ maxLength: 63 }), { maxItems: 64 })),
  },
  { additionalProperties: false },
);

/** Authorization request `definitions.labelSelector` in its structured form. */
export const StructuredSelectorSchema = Type.Object(
  {
    matchLabels: Type.Optional(
      MapOf(Type.String({ maxLength: 63 }), {
        maxProperties: 32,
        propertyNames: { maxLength: 317 },
      }),
    ),
    matchExpressions: Type.Optional(Type.Array(MatchExpressionSchema, { maxItems: 32 })),
  },
  { additionalProperties: false, minProperties: 1 },
);

/** Authorization request `definitions.labelSelector`. */
export const LabelSelectorSchema = OneOf(
  [Type.String({ minLength: 1, maxLength: 1024 }), StructuredSelectorSchema],
  {
    description:
      "A Kubernetes label selector: kubectl's text form (`team=payments,tier in (web,api),!canary`) or a metav1.LabelSelector. Its syntax and meaning are checked past the schema (src/labels/label-selector.ts).",
  },
);

/** Authorization request `definitions.fleetHalt`. */
export const FleetHaltBodySchema = Type.Object(
  {
    namespace: Type.Optional(
      Ref<typeof NamespaceSchema>('namespace', { document: 'routes.schema.json' }),
    ),
    selector: Ref<typeof LabelSelectorSchema>('labelSelector'),
    environment: Type.Optional(Type.String({ minLength: 1, maxLength: 253 })),
    reason: Type.String({ minLength: 1, maxLength: 1024, format: 'plain-text' }),
    expiresAt: Type.Optional(Type.String({ format: 'date-time', maxLength: 64 })),
  },
  { additionalProperties: false },
);

/** Authorization request `definitions.fleetHaltParams`. */
export const FleetHaltParamsSchema = Type.Object({
  id: Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9-]+$' }),
});

/** Authorization request `definitions.haltParams`. */
export const HaltParamsSchema = Type.Object({
  namespace: Ref<typeof NamespaceSchema>('namespace', { document: 'routes.schema.json' }),
  name: Ref<typeof NameSchema>('name', { document: 'routes.schema.json' }),
  id: Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9-]+$' }),
});

/** Authorization request `definitions.promotion`. */
export const PromotionBodySchema = Type.Object(
  {
    revision: Ref<typeof RevisionSchema>('revision'),
    decision: Type.Optional(Type.Enum(['approve', 'break-glass'])),
    comment: Type.Optional(Type.String({ maxLength: 1024, format: 'plain-text' })),
  },
  {
    additionalProperties: false,
    if: { required: ['decision'], properties: { decision: { const: 'break-glass' } } },
    then: { required: ['comment'], properties: { comment: { $ref: '#/definitions/reason' } } },
  },
);

/** Authorization request `definitions.rollback`. */
export const RollbackBodySchema = Type.Object(
  {
    revision: Type.Optional(Ref<typeof RevisionSchema>('revision')),
    reason: Ref<typeof ReasonSchema>('reason'),
  },
  { additionalProperties: false },
);

/** Authorization request `definitions.holdParams`. */
export const HoldParamsSchema = Type.Object({
  namespace: Ref<typeof NamespaceSchema>('namespace', { document: 'routes.schema.json' }),
  name: Ref<typeof NameSchema>('name', { document: 'routes.schema.json' }),
  env: Type.String({ minLength: 1, maxLength: 253 }),
  revision: Type.String({ minLength: 1, maxLength: 256 }),
});
