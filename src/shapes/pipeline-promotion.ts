/**
 * How a Pipeline promotes: strategy, approval, soak, windows and drift, pipeline-wide or per
 * environment.
 */
import { Type } from 'typebox';
import { OpenObject, StringEnum } from './kit.js';
import { CheckSpecSchema } from './pipeline-checks.js';
import { RollbackSpecSchema } from './pipeline-rollback.js';

/** Pipeline `spec.environments[].promotion.approval`. */
export const ApprovalSpecSchema = Type.Object(
  {
    approvers: Type.Optional(
      Type.Array(Type.String({ maxLength: 253, minLength: 1 }), {
        description:
          'Approvers may authorize; names of approvers in the gateway configuration, group:<name> and ci:<policy>. Empty means any configured approver (never a CI principal).',
        maxItems: 64,
      }),
    ),
    minApprovals: Type.Optional(
      Type.Integer({
        description:
          'MinApprovals is how many distinct allowed principals must approve (default 1).',
        maximum: 16,
        minimum: 1,
      }),
    ),
    mode: Type.Optional(
      StringEnum(['Enforce', 'Shadow'], {
        description:
          "Mode is Enforce (the default: promotions wait for the approvals) or Shadow (a promotion that lacks them goes on, and what the gate would have held is recorded: wouldHold, the history entry, promotion_gateway_shadow_holds_total, a ShadowHold notification). `manual: true` and the gateway's floors are enforced whatever the mode.",
      }),
    ),
  },
  {
    description:
      'Approval says who must authorize a promotion to this environment and how many (a promotion-gateway addition).',
  },
);

/** Pipeline `spec.environments[].promotion.breakGlass`. */
export const BreakGlassSpecSchema = Type.Object(
  {
    approvers: Type.Optional(
      Type.Array(Type.String({ maxLength: 253, minLength: 1 }), {
        description:
          "Approvers may break the glass besides being allowed by the gateway's list; names of approvers in the gateway configuration, group:<name> and ci:<policy>. Empty means the gateway's list alone.",
        maxItems: 64,
      }),
    ),
    minApprovals: Type.Optional(
      Type.Integer({
        description:
          "MinApprovals is how many distinct allowed principals must authorize the same revision (the gateway's count when that is higher).",
        maximum: 16,
        minimum: 1,
      }),
    ),
  },
  {
    description:
      "BreakGlass makes the break-glass quorum of this environment stricter than the gateway's (approvals.breakGlass): the higher count wins and a principal must be allowed by both lists; it never enables break-glass (a promotion-gateway addition).",
  },
);

/** Pipeline `spec.environments[].promotion.drift, spec.promotion.drift`. */
export const DriftSpecSchema = Type.Object(
  {
    mode: Type.Optional(StringEnum(['Warn', 'Correct', 'CorrectIfNotArrived'])),
    rolloutTimeout: Type.Optional(
      Type.String({
        description:
          'RolloutTimeout is how long a promoted revision may take to arrive before the environment counts as drifted (default 30m). Duration as Flux writes durations (Go syntax with the units ms, s, m and h), e.g. 10m or 1h; at most 8760h.',
        maxLength: 64,
        pattern: '^([0-9]+(\\.[0-9]+)?(ms|s|m|h))+$',
      }),
    ),
  },
  {
    description:
      'Drift says what the gateway does when the targets run another revision than the last successful promotion: Warn reports it; Correct promotes the recorded revision again as a new attempt; CorrectIfNotArrived (the default) does so only when the environment never ran it within rolloutTimeout, and reports a revision it ran and then left; pipeline-wide, it applies to every environment without its own (a promotion-gateway addition).',
  },
);

/** Pipeline `spec.environments[].promotion.soak, spec.promotion.soak`. */
export const SoakSpecSchema = Type.Object(
  {
    duration: Type.String({
      description:
        'Duration as Flux writes durations (Go syntax with the units ms, s, m and h), e.g. 30m, 1h30m or 24h; at most 8760h; 0s turns the soak off.',
      maxLength: 64,
      pattern: '^([0-9]+(\\.[0-9]+)?(ms|s|m|h))+$',
    }),
    mode: Type.Optional(
      StringEnum(['Enforce', 'Shadow'], {
        description:
          'Mode is Enforce (the default: the soak holds promotions) or Shadow (it is evaluated and what it would hold is recorded, in the policy view as wouldHold and in promotion_gateway_shadow_holds_total, but it holds nothing).',
      }),
    ),
  },
  {
    description:
      'Soak says how long the previous environment must have run a revision healthy, on every target and without a break, before this environment takes it; pipeline-wide, it applies to every environment without its own (a promotion-gateway addition).',
  },
);

/** Pipeline `spec.environments[].promotion.strategy.pull-request.secretRef`. */
export const PullRequestSecretRefSchema = Type.Object(
  { name: Type.String({ description: 'Name of the referent.' }) },
  {
    description:
      "SecretRef specifies the Secret containing authentication credentials for the git repository and for the git provider API. For HTTPS repositories the Secret must contain 'username' and 'password' fields. For Git Provider API to manage pull requests, it must contain a 'token' field.",
  },
);

/** Pipeline `spec.environments[].promotion.strategy.pull-request`. */
export const PullRequestStrategySpecSchema = Type.Object(
  {
    baseBranch: Type.String({
      description:
        'The branch to checkout after cloning. Note: This is just the base branch that will eventually receive the PR changes upon merge and does not denote the branch used to create a PR from. The latter is generated automatically and cannot be provided.',
    }),
    secretRef: PullRequestSecretRefSchema,
    type: StringEnum(['github', 'gitlab', 'bitbucket-server'], {
      description: 'Indicates the git provider type to manage pull requests.',
    }),
    url: Type.String({
      description: 'The git repository HTTPS URL used to patch the manifests for promotion.',
    }),
  },
  { description: 'PullRequest defines a promotion through a Pull Request.' },
);

/** Pipeline `spec.environments[].promotion.strategy.secretRef`. */
export const StrategySecretRefSchema = Type.Object(
  { name: Type.String({ description: 'Name of the referent.' }) },
  {
    description:
      "SecrefRef reference the secret that contains a 'hmac-key' field with HMAC key used to authenticate webhook calls.",
  },
);

/** Pipeline `spec.environments[].promotion.strategy.webhook`. */
export const WebhookStrategySpecSchema = Type.Object(
  {
    endpoint: Type.String({
      description: 'Endpoint names an entry of promotion.webhooks in the gateway configuration.',
      minLength: 1,
    }),
  },
  {
    description:
      'Webhook defines a promotion where the promotion gateway calls an endpoint named in its own configuration (a promotion-gateway addition).',
  },
);

/** Pipeline `spec.environments[].promotion.strategy, spec.promotion.strategy`. */
export const StrategySpecSchema = Type.Object(
  {
    notification: Type.Optional(
      OpenObject({
        description:
          "Notification defines a promotion where an event is emitted through Flux's notification-controller each time an app is to be promoted.",
      }),
    ),
    'pull-request': Type.Optional(PullRequestStrategySpecSchema),
    secretRef: Type.Optional(StrategySecretRefSchema),
    webhook: Type.Optional(WebhookStrategySpecSchema),
  },
  { description: 'Strategy defines which strategy the promotion should use.' },
);

/** Pipeline `spec.environments[].promotion.windows[], spec.promotion.windows[]`. */
export const PromotionWindowSpecSchema = Type.Object(
  {
    authorizationsPassFreeze: Type.Optional(
      Type.Boolean({
        description:
          "AuthorizationsPassFreeze lets a revision the environment's approval gate has approved (approvals, CI triggers) pass while this window holds (default false).",
      }),
    ),
    cron: Type.Optional(
      Type.String({
        description:
          'Cron is a cron expression (five fields, or six with seconds first) on the wall clock of timeZone; exactly one of rrule and cron.',
        maxLength: 256,
        minLength: 1,
      }),
    ),
    duration: Type.String({
      description:
        "Duration of each occurrence: Go's form (8h, 90m: exact time) or RFC 5545's (PT8H, P2DT14H, P2W: days and weeks on the calendar); at most 366 days.",
      maxLength: 32,
      pattern:
        '^(([0-9]+(\\.[0-9]+)?(ms|s|m|h))+|P([0-9]+W|[0-9]+D(T([0-9]+H([0-9]+M)?([0-9]+S)?|[0-9]+M([0-9]+S)?|[0-9]+S))?|T([0-9]+H([0-9]+M)?([0-9]+S)?|[0-9]+M([0-9]+S)?|[0-9]+S)))$',
    }),
    mode: Type.Optional(
      StringEnum(['Enforce', 'Shadow'], {
        description:
          'Mode is Enforce (the default: the window holds promotions) or Shadow (it is evaluated and what it would hold is recorded, in the policy view as wouldHold and in promotion_gateway_shadow_holds_total, but it holds nothing).',
      }),
    ),
    name: Type.String({
      description: 'Name of the window in messages.',
      maxLength: 63,
      pattern: '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$',
    }),
    rrule: Type.Optional(
      Type.String({
        description:
          'RRule is an RFC 5545 recurrence: a DTSTART line (local time in timeZone, DTSTART;TZID=<timeZone>:20250106T090000) and an RRULE line (RRULE:FREQ=WEEKLY;BYDAY=MO,TU,WE,TH).',
        maxLength: 1024,
        minLength: 1,
      }),
    ),
    timeZone: Type.String({
      description: 'TimeZone is an IANA time zone, e.g. Europe/Berlin.',
      maxLength: 64,
      pattern: '^[A-Za-z][A-Za-z0-9_+-]*(/[A-Za-z0-9_+-]+)*$',
    }),
    type: StringEnum(['Allow', 'Deny'], {
      description: 'Type is Allow (automatic promotions only inside) or Deny (never inside).',
    }),
  },
  {
    oneOf: [
      { properties: { rrule: {} }, required: ['rrule'] },
      { properties: { cron: {} }, required: ['cron'] },
    ],
  },
);

/**
 * The fields a promotion has wherever it is set, for one environment or for the whole Pipeline:
 * drift, manual, soak, strategy and windows. A function, so that each schema gets objects of its
 * own.
 */
export function promotionFields() {
  return {
    drift: Type.Optional(DriftSpecSchema),
    manual: Type.Optional(
      Type.Boolean({
        description:
          'Manual option to allow promotion between to require manual approval before proceeding.',
      }),
    ),
    soak: Type.Optional(SoakSpecSchema),
    strategy: StrategySpecSchema,
    windows: Type.Optional(
      Type.Array(PromotionWindowSpecSchema, {
        description:
          'Windows are promotion windows (a promotion-gateway addition): automatic promotions run only inside Allow windows, where any apply, and never inside Deny windows. Each is an RFC 5545 rule or a cron expression in an IANA time zone, every occurrence lasting duration. Pipeline-wide windows apply to every environment, together with its own.',
        maxItems: 32,
        'x-kubernetes-list-map-keys': ['name'],
        'x-kubernetes-list-type': 'map',
      }),
    ),
  };
}

/** Pipeline `spec.environments[].promotion`. */
export const EnvironmentPromotionSpecSchema = Type.Object(
  {
    approval: Type.Optional(ApprovalSpecSchema),
    breakGlass: Type.Optional(BreakGlassSpecSchema),
    checks: Type.Optional(
      Type.Array(CheckSpecSchema, {
        description:
          "Checks are external checks every revision must pass before this environment takes it: an HTTP endpoint's answer or the forge's commit statuses and check runs (a promotion-gateway addition).",
        maxItems: 16,
        'x-kubernetes-list-map-keys': ['name'],
        'x-kubernetes-list-type': 'map',
      }),
    ),
    rollback: Type.Optional(RollbackSpecSchema),
    ...promotionFields(),
  },
  { description: 'Promotion defines details about how the promotion is done on this environment.' },
);
