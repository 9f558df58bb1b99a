/**
 * A proposed policy for `promotion-gateway what-if` and `POST /v1/what-if`
 * (schemas/what-if-policy.schema.json): fleet windows as the configuration declares them, and
 * per-environment promotion fields for the Pipelines a name or a label selector picks.
 */
import { Type } from 'typebox';
import { Ref } from './kit.js';
import { CheckSpecSchema } from './pipeline-checks.js';
import {
  ApprovalSpecSchema,
  PromotionWindowSpecSchema,
  SoakSpecSchema,
} from './pipeline-promotion.js';

/**
 * What-if `definitions.fleetWindow`: a fleet window as the configuration declares one (a
 * Pipeline's window plus the environments it applies to).
 */
export const WhatIfFleetWindowSchema = Type.Object(
  {
    ...PromotionWindowSpecSchema.properties,
    environments: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 253 }), {
        description: 'The environment names it applies to; absent or empty: every environment.',
        maxItems: 64,
      }),
    ),
  },
  {
    additionalProperties: false,
    oneOf: [
      { properties: { rrule: {} }, required: ['rrule'] },
      { properties: { cron: {} }, required: ['cron'] },
    ],
  },
);

/** What-if `definitions.promotion`: the gate fields of a Pipeline environment's promotion. */
export const WhatIfPromotionSchema = Type.Object(
  {
    approval: Type.Optional(ApprovalSpecSchema),
    manual: Type.Optional(Type.Boolean()),
    soak: Type.Optional(SoakSpecSchema),
    windows: Type.Optional(Type.Array(PromotionWindowSpecSchema, { maxItems: 32 })),
    checks: Type.Optional(Type.Array(CheckSpecSchema, { maxItems: 16 })),
  },
  {
    description:
      "The gate fields of spec.environments[].promotion; each one given replaces the environment's own, the others stay as the Pipeline has them.",
    additionalProperties: false,
  },
);

/** What-if `definitions.pipelineRule`: which Pipelines and environments a change applies to. */
export const WhatIfPipelineRuleSchema = Type.Object(
  {
    name: Type.Optional(
      Type.String({
        description: 'NAMESPACE/NAME of one Pipeline; with selector, both must match.',
        maxLength: 317,
        pattern:
          '^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?/[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$',
      }),
    ),
    selector: Type.Optional(
      Type.String({
        description: "A label selector as kubectl's -l takes it (app=shop,tier!=batch).",
        minLength: 1,
        maxLength: 1024,
      }),
    ),
    environments: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 253 }), {
        description:
          'The environments it changes; absent or empty: every environment but the first.',
        maxItems: 64,
      }),
    ),
    promotion: Ref<typeof WhatIfPromotionSchema>('promotion'),
  },
  {
    description: 'Rules apply in order; a later rule replaces the fields an earlier one set.',
    additionalProperties: false,
    anyOf: [
      { properties: { name: {} }, required: ['name'] },
      { properties: { selector: {} }, required: ['selector'] },
    ],
  },
);

/** The what-if policy file and `POST /v1/what-if` body. */
export const WhatIfPolicySchema = Type.Object(
  {
    windows: Type.Optional(
      Type.Array(Ref<typeof WhatIfFleetWindowSchema>('fleetWindow'), {
        description:
          "Replaces the configuration's promotion.windows (absent: they stay); [] proposes none.",
        maxItems: 64,
      }),
    ),
    pipelines: Type.Optional(
      Type.Array(Ref<typeof WhatIfPipelineRuleSchema>('pipelineRule'), { maxItems: 256 }),
    ),
  },
  { additionalProperties: false },
);
