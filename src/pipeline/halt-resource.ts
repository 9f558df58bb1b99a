/**
 * ours: status.halts[i] of a Pipeline, one stop-the-line halt (docs/policy.md, "Stop-the-line
 * halts"), as in schemas/pipeline.schema.json. Part of the Pipeline vocabulary
 * (pipeline-resource.ts re-exports it), kept apart only to keep that file short.
 */
import type { AuthorizationKind } from './authorization-record.js';

/**
 * One halt: no promotion of `environment` (of every environment when absent) until it is
 * lifted or `expiresAt` passes. A lifted halt whose credential has not expired yet stays as a
 * tombstone (`liftedAt` set, holding nothing), so that credential cannot halt again.
 */
export interface HaltRecord {
  /** Names the halt for its lift; a halt by selector has one id on every Pipeline it holds. */
  id: string;
  environment?: string;
  /** Who halted, as approvals name principals. */
  principal: string;
  kind: AuthorizationKind;
  reason: string;
  /** When the gateway recorded it (RFC 3339). */
  time: string;
  /** When it stops holding (RFC 3339); absent = until lifted. */
  expiresAt?: string;
  /** The label selector (canonical text) of a halt made across Pipelines. */
  selector?: string;
  /** The halting credential's unique id: a second use is refused until it expires. */
  jti?: string;
  /** When that credential expires (RFC 3339): the record is kept at least until then. */
  credentialExpiresAt?: string;
  /** The signed halt statement itself (compact JWS), to re-verify offline. */
  statement?: string;
  /** When it was lifted (RFC 3339): a tombstone, which holds nothing. */
  liftedAt?: string;
  /** Who lifted it. */
  liftedBy?: string;
}
