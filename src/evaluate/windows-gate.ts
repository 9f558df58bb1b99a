/**
 * The promotion-window gate: holds an environment inside a deny window, or outside its allow
 * windows, with a message naming the window and the next opening (local time and UTC) and
 * `retryAt` at that opening (or, where windows keep each other shut for long, at the point the
 * bounded search reached). The operator's, the Pipeline's and the environment's windows all
 * apply; none widens another. A window that cannot be compiled or followed holds the
 * environment with InvalidPromotionWindow: a rule nobody can read never lets a promotion through.
 */
import { rfc3339 } from '../time/kube-time.js';
import type { PromotionWindowSpec } from '../pipeline/pipeline-resource.js';
import {
  breakGlassNote,
  breakGlassOf,
  withBreakGlassRetry,
  type BreakGlassTally,
} from './break-glass.js';
import type { EnvironmentDecision } from './decisions.js';
import { gateOf } from './gate.js';
import type { GateArgs, PolicyGate } from './gate-args.js';
import { Reasons } from './reasons.js';
import {
  closureAt,
  nextOpening,
  WindowError,
  type Closure,
  type CompiledWindows,
  type Opening,
  type PromotionWindow,
} from '../windows/promotion-window.js';

type Found = { ok: true; windows: PromotionWindow[] } | { ok: false; problem: string };

/** Windows named in messages before "and N more". */
const NAMED = 3;

/**
 * Holds the environment while a window does (see the module comment); undefined lets it
 * through: no window applies, every window allows now, the holding windows let an approved
 * revision of a gated environment pass, or a break-glass quorum authorized this revision here.
 * A window whose rule cannot be used holds even then: that is a spec to fix, not a freeze.
 */
export const windowsGate: PolicyGate = (args) => {
  const found = windowsFor(args);
  if (!found.ok) return invalid(args, found.problem);
  if (found.windows.length === 0) return undefined;
  const glass = breakGlassOf(args);
  if (glass?.met === true) return undefined;
  try {
    const closure = closureAt(found.windows, args.input.now);
    if (closure === undefined || authorizationsPass(args, closure)) return undefined;
    return held(args, closure, nextOpening(found.windows, args.input.now), glass);
  } catch (error) {
    if (error instanceof WindowError) return invalid(args, error.message);
    throw error;
  }
};

/**
 * The fleet windows for this environment, then the Pipeline's and the environment's: the
 * enforced ones, or with `shadow` the ones in `mode: Shadow` (shadow-gates.ts).
 */
export function windowsFor(args: GateArgs, shadow = false): Found {
  const { input, env } = args;
  const given = input.windows;
  const windows: PromotionWindow[] = (given?.fleet ?? []).filter(
    (w) => w.environments.length === 0 || w.environments.includes(env.name),
  );
  const places: [PromotionWindowSpec[] | undefined, CompiledWindows | undefined, string][] = [
    [input.spec.promotion?.windows, given?.pipeline, 'spec.promotion.windows'],
    [env.promotion?.windows, given?.environments?.[env.name], `${env.name}'s promotion.windows`],
  ];
  for (const [declared, compiled, where] of places) {
    const count = declared?.length ?? 0;
    if (count === 0) continue;
    // The spec says windows exist: without all of them compiled, nothing may be decided.
    if (compiled === undefined) return { ok: false, problem: `${where} were not compiled` };
    if (!compiled.ok) return { ok: false, problem: compiled.problem };
    if (compiled.windows.length !== count)
      return { ok: false, problem: `${where} were not all compiled` };
    windows.push(...compiled.windows);
  }
  return { ok: true, windows: windows.filter((w) => (w.shadow === true) === shadow) };
}

/**
 * Whether an authorization may pass: every window holding the environment says so and the
 * environment has an approval gate, which then decides (approvals and CI triggers as usual).
 * Where there is no gate there is no authorization to pass with.
 */
function authorizationsPass(args: GateArgs, closure: Closure): boolean {
  const holding = [...closure.denying.map((o) => o.window), ...closure.outside.flat()];
  if (!holding.every((w) => w.authorizationsPassFreeze)) return false;
  return gateOf(args.input.spec, args.env, args.input.floors?.[args.env.name]) !== undefined;
}

function held(
  args: GateArgs,
  closure: Closure,
  opening: Opening | undefined,
  glass: BreakGlassTally | undefined,
): EnvironmentDecision {
  const denying = closure.denying.map((o) => o.window);
  const holding = denying.length > 0 ? denying : closure.outside.flat();
  const why =
    denying.length > 0
      ? `inside deny window ${names(denying)}`
      : `outside allow ${holding.length === 1 ? 'window' : 'windows'} ${names(holding)}`;
  const at = opening === undefined ? '' : when(opening.at, opening.by ?? holding[0]);
  const next =
    opening === undefined
      ? 'no opening ahead (its allow windows do not occur again)'
      : opening.open
        ? `next opening ${at}`
        : `no opening before ${at}, when it looks again`;
  return {
    environment: args.env.name,
    outcome: 'Waiting',
    revision: args.revision,
    reason: denying.length > 0 ? Reasons.InDenyWindow : Reasons.OutsidePromotionWindow,
    message: `${args.ready}; ${args.env.name} waits: ${why}; ${next}${breakGlassNote(glass)}`,
    ...withBreakGlassRetry(opening?.at, glass),
  };
}

function invalid(args: GateArgs, problem: string): EnvironmentDecision {
  return {
    environment: args.env.name,
    outcome: 'Waiting',
    revision: args.revision,
    reason: Reasons.InvalidPromotionWindow,
    message: `${args.ready}; ${args.env.name} decides nothing until its promotion windows are fixed: ${problem}`,
  };
}

/** `"freeze" (fleet), "hours" (environment)`, the first few of them. */
export function names(windows: readonly PromotionWindow[]): string {
  const unique = [...new Set(windows)];
  const shown = unique.slice(0, NAMED).map((w) => `"${w.name}" (${w.level})`);
  const more = unique.length > NAMED ? ` and ${unique.length - NAMED} more` : '';
  return shown.join(', ') + more;
}

/** An instant in the window's own time zone and in UTC. */
function when(at: number, window: PromotionWindow | undefined): string {
  const utc = rfc3339(at);
  if (window === undefined) return utc;
  try {
    return `${window.schedule.local(at)} (${utc})`;
  } catch {
    return utc;
  }
}
