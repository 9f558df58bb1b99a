/**
 * ours: status.halts[i] of a Pipeline, one stop-the-line halt (docs/policy.md, "Stop-the-line
 * halts"), as in schemas/pipeline.schema.json. Part of the Pipeline vocabulary
 * (pipeline-resource.ts re-exports it), kept apart only to keep that file short.
 */
import type { Static } from 'typebox';
import type { HaltRecordSchema } from '../shapes/pipeline-records.js';

/**
 * One halt: no promotion of `environment` (of every environment when absent) until it is
 * lifted or `expiresAt` passes. A lifted halt whose credential has not expired yet stays as a
 * tombstone (`liftedAt` set, holding nothing), so that credential cannot halt again.
 */
export type HaltRecord = Static<typeof HaltRecordSchema>;
