/**
 * The notification events a Pipeline's status owes its subscribers (`status.outbox`), and the
 * preview a wait for an approval is recorded with, which its event carries.
 */
import { Type } from 'typebox';
import { StringEnum } from './kit.js';
import { WouldHoldSchema } from './pipeline-records.js';

/** Pipeline `status.outbox[].targets[]`. */
export const OutboxTargetSchema = Type.Object({
  cluster: Type.String({ maxLength: 253 }),
  namespace: Type.String({ maxLength: 63 }),
  name: Type.String({ maxLength: 253 }),
  kind: Type.String({ maxLength: 63 }),
  ready: Type.Optional(Type.Boolean()),
  revision: Type.Optional(Type.String({ maxLength: 256 })),
});

/**
 * The preview a WaitingForApproval event carries: the pending change's digest and summary as
 * recorded when the wait began, and where a person reads the whole change.
 */
export const WaitPreviewSchema = Type.Object({
  digest: Type.String({
    description:
      "The change set's digest an approval statement may sign: 'sha256:' and 64 hex digits.",
    maxLength: 71,
  }),
  summary: Type.String({
    description: 'One line a person reads before the diff (docs/api.md, "Preview").',
    maxLength: 512,
  }),
});

/** Pipeline `status.outbox[]`. */
export const OutboxEventSchema = Type.Object({
  type: Type.String({ maxLength: 63 }),
  environment: Type.String({ maxLength: 253 }),
  revision: Type.String({ maxLength: 256 }),
  subject: Type.String({ maxLength: 512 }),
  time: Type.String({ format: 'date-time' }),
  reason: Type.String({ maxLength: 1024 }),
  message: Type.String({ maxLength: 2048 }),
  severity: StringEnum(['info', 'error']),
  targets: Type.Array(OutboxTargetSchema, { maxItems: 64 }),
  attempt: Type.Optional(Type.Integer({ format: 'int64', minimum: 1 })),
  principal: Type.Optional(Type.String({ maxLength: 512 })),
  decision: Type.Optional(Type.String({ maxLength: 63 })),
  previousRevision: Type.Optional(Type.String({ maxLength: 256 })),
  wouldHold: Type.Optional(WouldHoldSchema),
  preview: Type.Optional(
    Type.Object({
      digest: Type.String({ maxLength: 71 }),
      summary: Type.String({ maxLength: 512 }),
      url: Type.Optional(Type.String({ maxLength: 2048 })),
    }),
  ),
});
