/**
 * The external-checks gate: an environment whose `promotion.checks` name HTTP checks or forge
 * commit statuses takes a revision only once every one of them has passed for that revision,
 * on a result younger than its cache time. Results are read by src/checks and passed in; an
 * Unknown or missing one decides nothing (the environment waits), a Failed or Pending one holds.
 */
import { clip, display } from '../text/text.js';
import type { CheckSpec } from '../pipeline/pipeline-resource.js';
import type { CheckResult, CheckState, EnvironmentDecision } from './decisions.js';
import type { GateArgs } from './gate-args.js';
import { Reasons } from './reasons.js';

/** Longest text of one check's result in a decision's message. */
const MAX_RESULT_TEXT = 200;

/** How one check stands for the revision, as the decision explains it. */
export interface Standing {
  name: string;
  /** The state the gate decides on: a stale pass is Pending, no result is Unknown. */
  state: CheckState;
  text: string;
  expiresAt?: number;
}

/**
 * Holds the environment unless every enforced check has a current Passed result for
 * `args.revision` (a check in `mode: Shadow` holds nothing: shadow-gates.ts).
 * Failed before Unknown before Pending decides the reason; `retryAt` is the earliest expiry
 * still ahead (a result already expired is being read again, and its arrival re-checks).
 */
export function checksGate(args: GateArgs): EnvironmentDecision | undefined {
  const standings = standingsOf(args, 'Enforce');
  if (standings.every((s) => s.state === 'Passed')) return undefined;
  const { now } = args.input;
  const ahead = standings.flatMap((s) =>
    s.expiresAt !== undefined && s.expiresAt > now ? [s.expiresAt] : [],
  );
  const name = args.env.name;
  return {
    environment: name,
    outcome: 'Waiting',
    revision: args.revision,
    reason: reasonOf(standings),
    message:
      `${args.ready}; ${name} waits for its checks on ${display(args.revision)}: ` +
      standings.map((s) => `${s.name} ${s.text}`).join('; '),
    ...(ahead.length === 0 ? {} : { retryAt: Math.min(...ahead) }),
  };
}

/**
 * How each check of `args.env` in `mode` (Enforce: the default) stands for `args.revision`, in
 * spec order; results are matched by the check's place among all the environment's checks.
 */
export function standingsOf(args: GateArgs, mode: 'Enforce' | 'Shadow'): Standing[] {
  const { now } = args.input;
  const known = args.input.checks?.[args.env.name] ?? [];
  return (args.env.promotion?.checks ?? []).flatMap((spec, index) =>
    (spec.mode ?? 'Enforce') === mode
      ? [standingOf(spec, latest(known, index, args.revision), now)]
      : [],
  );
}

/** The newest result of check `index` for `revision`, if any. */
export function latest(
  known: readonly CheckResult[],
  index: number,
  revision: string,
): CheckResult | undefined {
  let found: CheckResult | undefined;
  for (const r of known) {
    if (r.index !== index || r.revision !== revision) continue;
    if (found === undefined || r.expiresAt > found.expiresAt) found = r;
  }
  return found;
}

/** How check `spec` stands on its newest `result` at `now`, as the gate decides on it. */
export function standingOf(
  spec: CheckSpec,
  result: CheckResult | undefined,
  now: number,
): Standing {
  const name = display(spec.name, 63);
  if (result === undefined) return { name, state: 'Unknown', text: 'not checked yet' };
  const { expiresAt } = result;
  const why = clip(result.message, MAX_RESULT_TEXT);
  const detail = why === '' ? '' : `: ${why}`;
  switch (result.state) {
    case 'Passed':
      // A pass older than its cache time is renewed before it may let a revision through.
      return expiresAt > now
        ? { name, state: 'Passed', text: 'passed', expiresAt }
        : { name, state: 'Pending', text: 'passed, being checked again', expiresAt };
    case 'Failed':
      return { name, state: 'Failed', text: `failed${detail}`, expiresAt };
    case 'Pending':
      return { name, state: 'Pending', text: `pending${detail}`, expiresAt };
    case 'Unknown':
      return { name, state: 'Unknown', text: `unknown${detail}`, expiresAt };
  }
}

/** The reason not-passed `standings` hold with: Failed before Unknown before Pending. */
export function reasonOf(standings: readonly Standing[]): string {
  if (standings.some((s) => s.state === 'Failed')) return Reasons.CheckFailed;
  if (standings.some((s) => s.state === 'Unknown')) return Reasons.CheckUnknown;
  return Reasons.CheckPending;
}

/** The reasons this gate holds with: src/checks reads the checks of decisions that carry one. */
export const CHECK_REASONS: ReadonlySet<string> = new Set([
  Reasons.CheckFailed,
  Reasons.CheckUnknown,
  Reasons.CheckPending,
]);
