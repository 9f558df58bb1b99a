/**
 * Break-glass, pure: whether the recorded break-glass authorizations of one revision meet an
 * environment's quorum, so that exactly that revision passes the halts and windows gates of
 * exactly that environment (docs/policy.md, "Break-glass"). Nothing else: the soak, the checks
 * and an approval gate still decide. The operator's policy (config `approvals.breakGlass`)
 * enables it; an environment's `promotion.breakGlass` can only make its quorum stricter. A
 * record counts for `validForSeconds` after the gateway recorded it, so an emergency's
 * authorization cannot be kept for a later one.
 */
import type { AuthorizationRecord, PipelineEnvironment } from '../pipeline/pipeline-resource.js';
import { display } from '../text/text.js';
import { parseTimestamp } from '../time/kube-time.js';
import { allows, type Gate } from './gate.js';
import type { BreakGlassPolicy } from './decisions.js';
import type { GateArgs } from './gate-args.js';

/** Where the break-glass of one revision of one environment stands. */
export interface BreakGlassTally {
  /** The quorum: how many, and the lists every principal must be allowed by. */
  quorum: Gate;
  /** Distinct allowed principals whose break-glass of the revision still counts, in record order. */
  recordedBy: string[];
  /** Whether they meet the quorum: the revision then passes the halts and windows gates. */
  met: boolean;
  /** When the tally changes by itself (ms): the earliest end of a counted principal's record. */
  changesAt?: number;
}

/** Principals named in a message before "and N more". */
const NAMED = 3;

function atLeastOne(value: number | undefined): number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value > 1 ? value : 1;
}

/**
 * The break-glass quorum of `env`, or undefined where break-glass is disabled (no policy, or
 * the policy names nobody). The environment's own count and list only add to the operator's.
 */
export function breakGlassQuorum(
  policy: BreakGlassPolicy | undefined,
  env: PipelineEnvironment,
): Gate | undefined {
  if (policy === undefined || policy.approvers.length === 0) return undefined;
  const own = env.promotion?.breakGlass;
  const minApprovals = Math.max(atLeastOne(policy.minApprovals), atLeastOne(own?.minApprovals));
  const approverLists = [policy.approvers, own?.approvers ?? []].filter((l) => l.length > 0);
  return { minApprovals, minHumanApprovals: 0, approverLists };
}

/**
 * Tallies the break-glass records of `revision` against the quorum of `env` at `now`: a record
 * counts when it is a break-glass of that revision by a principal every list allows (a CI
 * principal only where named) and was recorded less than `validForSeconds` ago; distinct
 * principals count once. Undefined where break-glass is disabled.
 */
export function breakGlassTally(
  policy: BreakGlassPolicy | undefined,
  env: PipelineEnvironment,
  records: readonly AuthorizationRecord[] | undefined,
  revision: string,
  now: number,
): BreakGlassTally | undefined {
  const quorum = breakGlassQuorum(policy, env);
  if (policy === undefined || quorum === undefined) return undefined;
  const validMs = policy.validForSeconds * 1000;
  const ends = new Map<string, number>();
  for (const record of records ?? []) {
    if (record.decision !== 'break-glass' || record.revision !== revision) continue;
    if (!allows(quorum, record)) continue;
    const time = parseTimestamp(record.time);
    // A time nobody can read never counts: an unreadable record lets nothing through.
    if (time === undefined || time + validMs <= now) continue;
    ends.set(record.principal, Math.max(ends.get(record.principal) ?? 0, time + validMs));
  }
  const recordedBy = [...ends.keys()];
  const changesAt = recordedBy.length === 0 ? undefined : Math.min(...ends.values());
  return {
    quorum,
    recordedBy,
    met: recordedBy.length >= quorum.minApprovals,
    ...(changesAt === undefined ? {} : { changesAt }),
  };
}

/** The tally of the revision a policy gate is deciding on. */
export function breakGlassOf(args: GateArgs): BreakGlassTally | undefined {
  const { input, env, revision } = args;
  return breakGlassTally(
    input.breakGlass,
    env,
    input.authorizations?.[env.name],
    revision,
    input.now,
  );
}

/**
 * The end of a held decision's message where break-glass is enabled, so whoever reads why an
 * environment waits knows it can be broken and how far it is: `; break-glass: 1 of 2 (alice)`.
 */
export function breakGlassNote(tally: BreakGlassTally | undefined): string {
  if (tally === undefined) return '';
  const { recordedBy, quorum } = tally;
  const shown = recordedBy.slice(0, NAMED).map((p) => display(p));
  const more = recordedBy.length > NAMED ? ` and ${String(recordedBy.length - NAMED)} more` : '';
  const who = shown.length === 0 ? '' : ` (${shown.join(', ')}${more})`;
  return `; break-glass: ${String(recordedBy.length)} of ${String(quorum.minApprovals)}${who}`;
}

/** The earlier of a gate's own `retryAt` and when the break-glass tally changes by itself. */
export function withBreakGlassRetry(
  retryAt: number | undefined,
  tally: BreakGlassTally | undefined,
): { retryAt?: number } {
  const at = Math.min(retryAt ?? Infinity, tally?.changesAt ?? Infinity);
  return Number.isFinite(at) ? { retryAt: at } : {};
}
