/**
 * The stop-the-line gate: a halt recorded in status.halts (by an authorized principal, see
 * docs/policy.md, "Stop-the-line halts") holds its environment, or every environment of the
 * Pipeline, until it is lifted or its expiry passes. Pure: the stored halts are an input and
 * expiry is compared with `now`; `retryAt` is the expiry, when the Pipeline is looked at again.
 */
import type { HaltRecord } from '../pipeline/pipeline-resource.js';
import { display } from '../text/text.js';
import { parseTimestamp } from '../time/kube-time.js';
import { breakGlassNote, breakGlassOf, withBreakGlassRetry } from './break-glass.js';
import type { EnvironmentDecision } from './decisions.js';
import type { GateArgs } from './gate-args.js';
import { Reasons } from './reasons.js';

/**
 * When a halt stops holding (ms): Infinity without an expiry. An expiry that cannot be read
 * holds forever (until lifted): a record nobody can read never lets a promotion through. A
 * lifted halt (a tombstone kept against a replay of its credential) holds nothing.
 */
export function haltEnd(halt: HaltRecord): number {
  if (halt.liftedAt !== undefined) return -Infinity;
  if (halt.expiresAt === undefined) return Infinity;
  return parseTimestamp(halt.expiresAt) ?? Infinity;
}

/** The halts holding `environment` at `now`, the longest-lasting first. */
export function haltsInForce(
  halts: readonly HaltRecord[] | undefined,
  environment: string,
  now: number,
): HaltRecord[] {
  return (halts ?? [])
    .filter(
      (h) => (h.environment === undefined || h.environment === environment) && haltEnd(h) > now,
    )
    .sort((a, b) => haltEnd(b) - haltEnd(a));
}

/**
 * Holds the environment while a halt of it (or of the whole Pipeline) is in force, unless a
 * break-glass quorum has authorized exactly this revision for exactly this environment.
 */
export function haltsGate(args: GateArgs): EnvironmentDecision | undefined {
  const holding = haltsInForce(args.input.halts, args.env.name, args.input.now);
  const halt = holding[0];
  if (halt === undefined) return undefined;
  const glass = breakGlassOf(args);
  if (glass?.met === true) return undefined;
  const end = haltEnd(halt);
  const scope = halt.environment === undefined ? 'the whole Pipeline' : args.env.name;
  const until = Number.isFinite(end) ? `until ${display(halt.expiresAt)}` : 'until it is lifted';
  const more = holding.length > 1 ? ` (and ${String(holding.length - 1)} more)` : '';
  return {
    environment: args.env.name,
    outcome: 'Waiting',
    revision: args.revision,
    reason: Reasons.Halted,
    message: `${args.ready}; ${args.env.name} waits: ${scope} is halted by ${display(halt.principal)} since ${display(halt.time)} (${display(halt.reason, 256)})${more}, ${until}${breakGlassNote(glass)}`,
    ...withBreakGlassRetry(Number.isFinite(end) ? end : undefined, glass),
  };
}
