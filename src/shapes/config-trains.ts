/**
 * The configuration's `trains` section: what the operator allows PromotionTrains
 * (docs/configuration.md, `trains`).
 */
import { Type } from 'typebox';

/** Configuration `trains`. */
export const TrainsInputSchema = Type.Object(
  {
    crossNamespace: Type.Optional(
      Type.Union(
        [
          Type.Boolean(),
          Type.Array(
            Type.String({
              minLength: 1,
              maxLength: 63,
              pattern: '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$',
            }),
            { maxItems: 256 },
          ),
        ],
        {
          description:
            'Whether a PromotionTrain may name Pipelines of another namespace as members (spec.members[].name `namespace/name`): false, the default, only its own; true, any train; a list, only trains in these namespaces.',
          default: false,
        },
      ),
    ),
  },
  {
    description: 'What the operator allows PromotionTrains (docs/policy.md, Release trains).',
    additionalProperties: false,
    default: {},
  },
);
