/**
 * Approval gates, pure: which principals may authorize a promotion to an environment, how
 * many must, and whether the recorded authorizations of one revision meet that. A gate comes
 * from weave's `manual: true` (one approval), our optional `promotion.approval`, and the
 * gateway's floor for the environment's name; the stricter of them always wins.
 */
import type {
  ApprovalSpec,
  AuthorizationRecord,
  PipelineEnvironment,
  PipelineSpec,
} from '../pipeline/pipeline-resource.js';
import { parseTimestamp } from '../time/kube-time.js';

/** The gateway's floor for environments of one name (config `approvals.floors`). */
export interface GateFloor {
  minApprovals?: number;
  /** Of those, at least this many by people (not CI, not the legacy shared key). */
  minHumanApprovals?: number;
  /** Principals allowed by the floor; empty or absent = any authenticated approver. */
  approvers?: readonly string[];
}

/** The effective gate of one environment. */
export interface Gate {
  minApprovals: number;
  minHumanApprovals: number;
  /** Every non-empty list must allow a principal (pipeline's and floor's: the stricter wins). */
  approverLists: readonly (readonly string[])[];
}

/** The digest of the change a promotion would make, and when it was learnt (ms). */
export interface KnownDigest {
  digest: string;
  at: number;
}

/** An approval that stopped counting: who gave it, and the change (preview digest) it was for. */
export interface StaleApproval {
  principal: string;
  digest: string;
}

/** Where one revision stands against a gate. */
export interface GateTally {
  /** Distinct allowed principals that approved, in record order. */
  approvedBy: string[];
  /** How many of them are people. */
  humans: number;
  /** The first allowed principal that rejected the revision, if any. */
  rejectedBy?: string;
  /**
   * Allowed principals whose approval is bound to a preview digest other than `digest`, each
   * with the digest of its latest such approval (a later stale approval is a new one to tell).
   */
  previewChanged: StaleApproval[];
  satisfied: boolean;
}

function wholeAtLeast(value: number | undefined, min: number): number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value > min ? value : min;
}

/**
 * The gate of `env`, or undefined when it has none. `manual: true` (here or pipeline-wide)
 * asks for one approval; `promotion.approval` for `minApprovals` (default 1) unless it is in
 * `mode: Shadow` (then only with `options.shadow`); the floor can raise either count and narrow
 * who may approve, never lower or widen them.
 */
export function gateOf(
  spec: PipelineSpec,
  env: PipelineEnvironment,
  floor: GateFloor | undefined,
  options: { shadow?: boolean } = {},
): Gate | undefined {
  const manual = (env.promotion?.manual ?? spec.promotion?.manual) === true;
  const declared: ApprovalSpec | undefined = env.promotion?.approval;
  // A shadow approval is a gate being tried out: it counts only where shadow-gates.ts asks.
  const approval = declared?.mode === 'Shadow' && options.shadow !== true ? undefined : declared;
  const fromSpec =
    approval === undefined ? (manual ? 1 : 0) : wholeAtLeast(approval.minApprovals, 1);
  const minApprovals = Math.max(fromSpec, wholeAtLeast(floor?.minApprovals, 0));
  const minHumanApprovals = wholeAtLeast(floor?.minHumanApprovals, 0);
  const required = Math.max(minApprovals, minHumanApprovals);
  if (required === 0) return undefined;
  const approverLists = [approval?.approvers ?? [], floor?.approvers ?? []].filter(
    (list) => list.length > 0,
  );
  return { minApprovals: required, minHumanApprovals, approverLists };
}

/** Whether `record`'s principal is allowed by one approver list. */
function listAllows(list: readonly string[], record: AuthorizationRecord): boolean {
  if (list.includes(record.principal)) return true;
  return (record.groups ?? []).some((group) => list.includes(`group:${group}`));
}

/**
 * Whether the gate lets `record` count. People count when every list allows them (any
 * authenticated approver when there is no list); a CI principal counts only where it is named,
 * since a machine must never stand in for a person by default.
 */
export function allows(gate: Gate, record: AuthorizationRecord): boolean {
  if (record.kind === 'ci' && gate.approverLists.length === 0) return false;
  return gate.approverLists.every((list) => listAllows(list, record));
}

/** Whether `record` is bound to a preview digest other than `digest` (when that is known). */
/**
 * Whether `record` is bound to a change that is no longer the one the promotion would make: a
 * digest learnt after it was recorded says another (one learnt before says nothing: the
 * approval door had seen its digest current), or the status already records it as stale.
 */
function previewMoved(
  record: AuthorizationRecord,
  known: KnownDigest | undefined,
  recordedStale: readonly StaleApproval[],
): boolean {
  const bound = record.previewDigest;
  if (bound === undefined) return false;
  if (known !== undefined && bound !== known.digest && learntAfter(known, record)) return true;
  return recordedStale.some((s) => s.principal === record.principal && s.digest === bound);
}

function learntAfter(known: KnownDigest, record: AuthorizationRecord): boolean {
  const recorded = parseTimestamp(record.time);
  return recorded === undefined || known.at > recorded;
}

/**
 * Tallies the records of `revision` against `gate`: distinct principals count once each, and
 * an approval bound to a preview digest other than `known` (the change's, learnt after the
 * approval) not at all, nor
 * one the status already records as stale (`recordedStale`): what one replica found, every
 * replica keeps, whatever its own previews know.
 */
export function tally(
  gate: Gate,
  records: readonly AuthorizationRecord[],
  revision: string,
  known?: KnownDigest,
  recordedStale: readonly StaleApproval[] = [],
): GateTally {
  const approvedBy: string[] = [];
  const previewChanged = new Map<string, string>();
  let humans = 0;
  let rejectedBy: string | undefined;
  for (const record of records) {
    if (record.revision !== revision || !allows(gate, record)) continue;
    // A rollback request authorizes a rollback (rollback.ts), never a promotion.
    if (record.decision === 'rollback') continue;
    if (record.decision !== 'reject' && previewMoved(record, known, recordedStale)) {
      previewChanged.set(record.principal, record.previewDigest ?? '');
      continue;
    }
    if (record.decision === 'reject') {
      rejectedBy ??= record.principal;
      continue;
    }
    if (approvedBy.includes(record.principal)) continue;
    approvedBy.push(record.principal);
    if (record.kind === 'human') humans += 1;
  }
  const satisfied =
    rejectedBy === undefined &&
    approvedBy.length >= gate.minApprovals &&
    humans >= gate.minHumanApprovals;
  const stale = [...previewChanged]
    .filter(([principal]) => !approvedBy.includes(principal))
    .map(([principal, bound]) => ({ principal, digest: bound }));
  return {
    ...{ approvedBy, humans, previewChanged: stale, satisfied },
    ...(rejectedBy === undefined ? {} : { rejectedBy }),
  };
}

/** What the gate still needs, for a message: "1 of 2 approvals (1 more by a person)". */
export function missing(gate: Gate, counted: GateTally): string {
  const people = Math.max(0, gate.minHumanApprovals - counted.humans);
  const byPeople = people > 0 ? ` (${people} more by a person)` : '';
  const noun = gate.minApprovals === 1 ? 'approval' : 'approvals';
  return `${counted.approvedBy.length} of ${gate.minApprovals} ${noun}${byPeople}`;
}
