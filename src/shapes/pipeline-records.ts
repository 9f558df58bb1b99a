/**
 * The records the gateway keeps in a Pipeline's status: promotions, authorizations, halts (owed
 * notifications: pipeline-outbox.ts).
 */
import { Type } from 'typebox';
import { StringEnum } from './kit.js';

/** Pipeline `status.environments.*.approvals[]`. */
export const AuthorizationRecordSchema = Type.Object({
  comment: Type.Optional(Type.String({ maxLength: 1024 })),
  decision: StringEnum(['approve', 'reject', 'break-glass', 'rollback']),
  expiresAt: Type.Optional(Type.String({ format: 'date-time' })),
  from: Type.Optional(
    Type.String({
      description:
        'From is, for a rollback, the revision the environment ran when it was asked for: the one rolled back (revision is the one rolled back to).',
      maxLength: 256,
    }),
  ),
  groups: Type.Optional(Type.Array(Type.String(), { maxItems: 64 })),
  jti: Type.Optional(Type.String({ maxLength: 256 })),
  kind: StringEnum(['human', 'ci', 'legacy']),
  previewDigest: Type.Optional(
    Type.String({
      description:
        'PreviewDigest is the digest of the previewed change the approval was given for; it counts only while the change has that digest.',
      maxLength: 71,
    }),
  ),
  principal: Type.String({ maxLength: 512 }),
  revision: Type.String(),
  statement: Type.Optional(
    Type.String({
      description:
        'Statement is the signed approval (compact JWS) exactly as received, for offline re-verification.',
      maxLength: 16384,
    }),
  ),
  time: Type.String({ format: 'date-time' }),
});

/** Pipeline `status.environments.*.promotion.rollback, status.environments.*.history[].rollback`. */
export const RollbackMarkSchema = Type.Object(
  {
    automatic: Type.Optional(
      Type.Boolean({
        description:
          'Automatic is true for a rollback the gateway made itself: the promoted revision failed verification within the automatic window.',
      }),
    ),
    by: Type.Array(Type.String({ maxLength: 512 }), {
      description: 'By names who asked for the rollback (the gateway for an automatic one).',
      maxItems: 16,
    }),
    from: Type.String({ description: 'From is the revision rolled back.', maxLength: 256 }),
    reason: Type.String({ description: 'Reason is why, as asked.', maxLength: 1024 }),
    statements: Type.Optional(
      Type.Array(Type.String({ maxLength: 256 }), {
        description: 'Statements are the ids (jti) of the signed statements or tokens that asked.',
        maxItems: 16,
      }),
    ),
    train: Type.Optional(
      Type.String({
        description:
          "Train is the PromotionTrain (namespace/name) whose failed release rolled this member back; such a rollback holds no revision (the train's release does).",
        maxLength: 507,
      }),
    ),
  },
  {
    description:
      'Rollback marks a promotion that rolls the environment back to an earlier revision it ran healthy (a promotion-gateway addition).',
  },
);

/** Pipeline `status.environments.*.promotion.wouldHold[]` and `history[].wouldHold[]`. */
export const ShadowHoldRecordSchema = Type.Object(
  {
    gate: StringEnum(['window', 'soak', 'approval', 'check']),
    name: Type.String({ maxLength: 253 }),
    reason: Type.String({ maxLength: 63 }),
  },
  {
    description:
      'A gate in mode Shadow that would have held this promotion when it was claimed: the gate, its name and the reason it would have given (a promotion-gateway addition).',
  },
);

/** What shadow gates would have held: a record's, a history entry's, an outbox event's. */
export const WouldHoldSchema = Type.Array(ShadowHoldRecordSchema, { maxItems: 16 });

/** Pipeline `status.environments.*.history[]`. */
export const PromotionHistoryEntrySchema = Type.Object({
  revision: Type.String({ maxLength: 256 }),
  rollback: Type.Optional(RollbackMarkSchema),
  startedTime: Type.String({ format: 'date-time' }),
  attempts: Type.Integer({ format: 'int64', minimum: 1 }),
  failedTime: Type.Optional(Type.String({ format: 'date-time' })),
  failure: Type.Optional(Type.String({ maxLength: 256 })),
  succeededTime: Type.Optional(Type.String({ format: 'date-time' })),
  upstreamVerifiedTime: Type.Optional(
    Type.String({
      description:
        "UpstreamVerifiedTime is the promotion record's: the revision's place in the order of revisions.",
      format: 'date-time',
    }),
  ),
  wouldHold: Type.Optional(WouldHoldSchema),
});

/** Pipeline `status.environments.*.promotion.pullRequest`. */
export const PullRequestRecordSchema = Type.Object(
  { state: Type.String(), url: Type.String() },
  { description: 'PullRequestStatus records the status of an attempted pull request promotion.' },
);

/** Pipeline `status.environments.*.promotion`. */
export const PromotionRecordSchema = Type.Object(
  {
    attempt: Type.Optional(
      Type.Integer({
        description:
          'Attempt numbers the attempts at this revision, 1 for the first (a promotion-gateway addition).',
        format: 'int64',
        minimum: 1,
      }),
    ),
    claimedBy: Type.Optional(
      Type.String({
        description:
          'ClaimedBy identifies the gateway instance that claimed this attempt (a promotion-gateway addition).',
      }),
    ),
    deadlineTime: Type.Optional(
      Type.String({
        description:
          'DeadlineTime is when the claimed attempt must have ended: until then no replica replaces the claim, after it any replica resolves it (a promotion-gateway addition).',
        format: 'date-time',
      }),
    ),
    lastAttemptedTime: Type.String({ format: 'date-time' }),
    message: Type.Optional(
      Type.String({
        description:
          'Message describes the outcome of the attempt and never holds secrets (a promotion-gateway addition).',
      }),
    ),
    phase: Type.Optional(
      StringEnum(['Claimed', 'Succeeded', 'Failed'], {
        description:
          'Phase is Claimed from before the promotion action runs until its outcome is recorded as Succeeded or Failed (a promotion-gateway addition).',
      }),
    ),
    pullRequest: Type.Optional(PullRequestRecordSchema),
    redelivery: Type.Optional(
      Type.Integer({
        description:
          'Redelivery counts which delivery of the revision beyond the first this attempt makes: a drift correction delivers it again, as a new message (a promotion-gateway addition).',
        format: 'int64',
        minimum: 1,
      }),
    ),
    resolution: Type.Optional(
      StringEnum(['Observed', 'Abandoned'], {
        description:
          'Resolution says how a claim whose outcome was not recorded by its deadline was concluded: Observed (its targets ran the revision, so Succeeded) or Abandoned (they did not, so Failed and retried by the retry policy; a promotion-gateway addition).',
      }),
    ),
    retryAfterTime: Type.Optional(
      Type.String({
        description:
          "No further attempt before this time, as the remote asked (e.g. a forge's rate limit; a promotion-gateway addition).",
      }),
    ),
    retryable: Type.Optional(
      Type.Boolean({
        description:
          'Retryable is false when a Failed attempt cannot succeed by retrying (e.g. the receiver refused the request); no further attempt is made at this revision (a promotion-gateway addition).',
      }),
    ),
    revision: Type.String(),
    rollback: Type.Optional(RollbackMarkSchema),
    succeeded: Type.Boolean(),
    upstreamVerifiedTime: Type.Optional(
      Type.String({
        description:
          'UpstreamVerifiedTime is when the previous environment was first verified running this revision healthy, the order of revisions: no claim goes to a revision first verified before one this record shows succeeded or in flight (a promotion-gateway addition).',
        format: 'date-time',
      }),
    ),
    wouldHold: Type.Optional(WouldHoldSchema),
  },
  {
    description:
      'PromotionStatus represents the state of an attempted promotion to the enclosing Environment.',
  },
);

/** Pipeline `status.environments.*.holds[]`. */
export const RevisionHoldSchema = Type.Object(
  {
    by: Type.String({ description: 'By is who (or what) set the hold.', maxLength: 512 }),
    liftedAt: Type.Optional(
      Type.String({
        description: 'LiftedAt is when a person lifted the hold; lifted, it holds nothing.',
        format: 'date-time',
      }),
    ),
    liftedBy: Type.Optional(Type.String({ maxLength: 512, minLength: 1 })),
    message: Type.Optional(Type.String({ maxLength: 1024 })),
    reason: StringEnum(['RolledBack', 'FailedVerification'], {
      description:
        'Reason is RolledBack (the environment was rolled back from revision: it is not promoted there again) or FailedVerification (revision turned unhealthy within the automatic rollback window: no environment from this one on takes it).',
    }),
    revision: Type.String({ maxLength: 256 }),
    time: Type.String({ format: 'date-time' }),
  },
  {
    description:
      'A revision held away from the environment until a newer one arrives upstream or a person lifts the hold (a promotion-gateway addition).',
  },
);

/** Pipeline `status.halts[]`. */
export const HaltRecordSchema = Type.Object(
  {
    credentialExpiresAt: Type.Optional(
      Type.String({
        description:
          'CredentialExpiresAt is when the halting credential expires; the record is kept at least until then.',
        format: 'date-time',
      }),
    ),
    environment: Type.Optional(Type.String({ maxLength: 253, minLength: 1 })),
    expiresAt: Type.Optional(Type.String({ format: 'date-time' })),
    id: Type.String({ maxLength: 64, minLength: 1 }),
    jti: Type.Optional(
      Type.String({
        description:
          "Jti is the halting credential's unique id, refused a second time while the record is kept.",
        maxLength: 256,
        minLength: 1,
      }),
    ),
    kind: StringEnum(['human', 'ci', 'legacy']),
    liftedAt: Type.Optional(
      Type.String({
        description:
          'LiftedAt is when the halt was lifted; with it set the record is a tombstone that holds nothing.',
        format: 'date-time',
      }),
    ),
    liftedBy: Type.Optional(
      Type.String({
        description: 'LiftedBy is who lifted the halt.',
        maxLength: 512,
        minLength: 1,
      }),
    ),
    principal: Type.String({ maxLength: 512 }),
    reason: Type.String({ maxLength: 1024, minLength: 1 }),
    selector: Type.Optional(
      Type.String({
        description:
          'Selector is the label selector (canonical text) of a halt made across Pipelines; it has one id on each.',
        maxLength: 1024,
        minLength: 1,
      }),
    ),
    statement: Type.Optional(
      Type.String({
        description: 'Statement is the signed halt statement (compact JWS), to re-verify offline.',
        maxLength: 4096,
        minLength: 1,
      }),
    ),
    time: Type.String({ format: 'date-time' }),
  },
  {
    oneOf: [
      { properties: { liftedAt: {}, liftedBy: {} }, required: ['liftedAt', 'liftedBy'] },
      {
        not: {
          anyOf: [
            { properties: { liftedAt: {} }, required: ['liftedAt'] },
            { properties: { liftedBy: {} }, required: ['liftedBy'] },
          ],
        },
      },
    ],
  },
);
