/**
 * The promotion record of one environment (status.environments[env].promotion) and its
 * history entries: what the claim, the outcome and a claim's resolution write, and what the
 * order of revisions and notifications read. Part of the Pipeline resource's TypeScript view
 * (pipeline-resource.ts re-exports it).
 */
import type { Static } from 'typebox';
import type {
  PromotionHistoryEntrySchema,
  PromotionRecordSchema,
  RevisionHoldSchema,
  RollbackMarkSchema,
  ShadowHoldRecordSchema,
} from '../shapes/pipeline-records.js';

/** status.environments[env].promotion: the claim and outcome of the latest promotion attempt. */
export type PromotionRecord = Static<typeof PromotionRecordSchema>;

/** Phases of a promotion record (ours); weave's record has only `succeeded`. */
export type PromotionPhase = NonNullable<PromotionRecord['phase']>;

/** ours: how a claim past its deadline was concluded; see PromotionRecord.resolution. */
export type PromotionResolution = NonNullable<PromotionRecord['resolution']>;

/**
 * ours: status.environments[env].history[i], one revision's promotion: when it was first
 * claimed, how many attempts it took, and when it first failed and when it succeeded. Written
 * with the promotion record it summarizes, so it is as durable as the record.
 */
export type PromotionHistoryEntry = Static<typeof PromotionHistoryEntrySchema>;

/** ours: a record's or history entry's rollback mark: from what, by whom, why. */
export type RollbackMark = Static<typeof RollbackMarkSchema>;

/** ours: status.environments[env].holds[i], a revision the environment does not take. */
export type RevisionHold = Static<typeof RevisionHoldSchema>;

/** ours: a shadow gate that would have held a claimed promotion (record and history entry). */
export type ShadowHoldRecord = Static<typeof ShadowHoldRecordSchema>;
