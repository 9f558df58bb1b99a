/**
 * ours: status.environments[env].approvals[i] of a Pipeline, one recorded authorization, as in
 * schemas/pipeline.schema.json. Part of the Pipeline vocabulary (pipeline-resource.ts
 * re-exports it), kept apart only to keep that file short.
 */
import type { Static } from 'typebox';
import type { AuthorizationRecordSchema } from '../shapes/pipeline-records.js';

/**
 * ours: status.environments[env].approvals[i], one authorization (approval, rejection, CI
 * trigger or break-glass) of one revision by one principal, recorded before it counts.
 */
export type AuthorizationRecord = Static<typeof AuthorizationRecordSchema>;

/** How a principal proved itself: a person, a CI job, or weave's shared legacy key. */
export type AuthorizationKind = AuthorizationRecord['kind'];
