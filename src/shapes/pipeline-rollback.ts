/**
 * Who may roll an environment back, how many must ask, and whether the gateway rolls back by
 * itself when a promoted revision fails verification (docs/policy.md, "Rollback").
 */
import { Type } from 'typebox';

/** Pipeline `spec.environments[].promotion.rollback.automatic`. */
export const AutomaticRollbackSpecSchema = Type.Object(
  {
    duringHalts: Type.Optional(
      Type.Boolean({
        description:
          'DuringHalts lets an automatic rollback run while a stop-the-line halt holds the environment (default false: a halt holds it).',
      }),
    ),
    window: Type.String({
      description:
        'Window is how long after a promotion succeeded a failed verification rolls it back, as Flux writes durations (e.g. 15m); at most 8760h.',
      maxLength: 64,
      pattern: '^([0-9]+(\\.[0-9]+)?(ms|s|m|h))+$',
    }),
  },
  {
    description:
      'Automatic rolls the environment back to the previous revision it ran healthy when its targets turn unhealthy at a promoted revision within window, once per revision, and holds that revision for this and every later environment.',
  },
);

/** Pipeline `spec.environments[].promotion.rollback`. */
export const RollbackSpecSchema = Type.Object(
  {
    approvers: Type.Optional(
      Type.Array(Type.String({ maxLength: 253, minLength: 1 }), {
        description:
          'Approvers may roll back and lift holds; names of approvers in the gateway configuration, group:<name> and ci:<policy>. Empty means any configured approver (never a CI principal).',
        maxItems: 64,
      }),
    ),
    automatic: Type.Optional(AutomaticRollbackSpecSchema),
    minApprovals: Type.Optional(
      Type.Integer({
        description:
          'MinApprovals is how many distinct allowed principals must ask for the same rollback (default 1).',
        maximum: 16,
        minimum: 1,
      }),
    ),
  },
  {
    description:
      'Rollback says who may roll this environment back to an earlier revision it ran healthy, how many must ask, and whether the gateway rolls back by itself (a promotion-gateway addition).',
  },
);
