/**
 * What the authorizer judges of a break-glass authorization (docs/policy.md, "Break-glass"):
 * whether break-glass is enabled for the environment and allows the principal, and whether the
 * environment is held by a halt or a promotion window at exactly the revision named. Counting
 * the quorum is the evaluator's (src/evaluate/break-glass.ts): the record only adds to it.
 */
import { allows } from '../evaluate/gate.js';
import { breakGlassQuorum, breakGlassTally } from '../evaluate/break-glass.js';
import type { BreakGlassPolicy, EnvironmentDecision } from '../evaluate/decisions.js';
import { Reasons } from '../evaluate/reasons.js';
import { display } from '../text/text.js';
import type { AuthorizationRecord, Pipeline } from '../pipeline/pipeline-resource.js';

/** The reasons of the decisions a break-glass may pass: a halt and a window in force. */
const BREAKABLE: ReadonlySet<string> = new Set([
  Reasons.Halted,
  Reasons.InDenyWindow,
  Reasons.OutsidePromotionWindow,
]);

/** Where a break-glass stands, as the 202 answer shows it. */
export interface BreakGlassView {
  required: number;
  /** Distinct allowed principals whose break-glass of the revision counts now. */
  recordedBy: string[];
  /** Whether they meet the quorum (the halts and windows let the revision pass). */
  met: boolean;
  /** e.g. "1 of 2 break-glass authorizations". */
  summary: string;
}

/**
 * Undefined when break-glass is enabled for `environment` and its quorum allows the record's
 * principal; otherwise the Forbidden answer's detail.
 */
export function breakGlassRefusal(
  policy: BreakGlassPolicy | undefined,
  pipeline: Pipeline,
  environment: string,
  record: AuthorizationRecord,
): string | undefined {
  const env = pipeline.spec.environments.find((e) => e.name === environment);
  const quorum = env === undefined ? undefined : breakGlassQuorum(policy, env);
  if (quorum === undefined)
    return 'break-glass is not enabled: the gateway configuration names no approvals.breakGlass.approvers';
  return allows(quorum, record)
    ? undefined
    : `${display(record.principal)} may not break the glass for ${environment} (approvals.breakGlass.approvers and its promotion.breakGlass.approvers must both allow them)`;
}

/**
 * Undefined when `environment` is held by a halt or a window at exactly `revision` (a
 * break-glass of it can count); otherwise why not, for a NotWaiting answer.
 */
export function breakGlassWaiting(
  decision: EnvironmentDecision | undefined,
  revision: string,
  environment: string,
): string | undefined {
  if (decision === undefined) return `${environment} is not in the Pipeline`;
  const held = BREAKABLE.has(decision.reason);
  if (held && decision.revision === revision) return undefined;
  return held && decision.revision !== undefined
    ? `${environment} is held at ${display(decision.revision)}, not ${display(revision)}`
    : `${environment} is not held by a halt or a promotion window (${decision.reason}: ${display(decision.message, 200)})`;
}

/** The answer's view of the break-glass of the record's revision, as the stored status has it. */
export function breakGlassView(
  policy: BreakGlassPolicy | undefined,
  pipeline: Pipeline,
  record: AuthorizationRecord,
  environment: string,
  now: number,
): BreakGlassView | undefined {
  const env = pipeline.spec.environments.find((e) => e.name === environment);
  if (env === undefined) return undefined;
  const records = pipeline.status?.environments?.[environment]?.approvals;
  const tally = breakGlassTally(policy, env, records, record.revision, now);
  if (tally === undefined) return undefined;
  const required = tally.quorum.minApprovals;
  const noun = required === 1 ? 'authorization' : 'authorizations';
  return {
    required,
    recordedBy: tally.recordedBy,
    met: tally.met,
    summary: `${String(tally.recordedBy.length)} of ${String(required)} break-glass ${noun}`,
  };
}
