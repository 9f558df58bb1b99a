/**
 * Shadow gates: a gate in `mode: Shadow` (a promotion window, fleet-wide or in the spec, or a soak)
 * is evaluated as the gate would be, but holds nothing: what it would hold is recorded beside
 * the decision (`wouldHold`) and in the policy view, and counted when the promotion it would
 * have held runs (promotion_gateway_shadow_holds_total). Pure, like every gate.
 */
import type { EnvironmentDecision, ShadowHold } from './decisions.js';
import type { GateArgs } from './gate-args.js';
import { Reasons } from './reasons.js';
import { soakHold, soakOf } from './soak.js';
import { names, windowsFor } from './windows-gate.js';
import { closureAt, WindowError } from '../windows/promotion-window.js';

/** Whether a window or the soak of `args.env` is in `mode: Shadow` (needs no revision). */
export function hasShadowGates(args: GateArgs): boolean {
  if (shadowSoak(args)) return true;
  const found = windowsFor(args, true);
  return found.ok && found.windows.length > 0;
}

function shadowSoak(args: GateArgs): boolean {
  return soakOf(args.input.spec, args.env)?.mode === 'Shadow';
}

/** What the shadow gates of `args.env` would hold now: its shadow windows, then a shadow soak. */
export function shadowHolds(args: GateArgs): ShadowHold[] {
  return [...shadowWindowHolds(args), ...shadowSoakHolds(args)];
}

function shadowSoakHolds(args: GateArgs): ShadowHold[] {
  if (!shadowSoak(args)) return [];
  const held = soakHold(args);
  if (held === undefined) return [];
  const upstream = args.input.spec.environments[args.index - 1]?.name ?? '';
  const message = `${args.env.name} would wait (shadow soak): ${held.message}`;
  return [{ gate: 'soak', name: upstream, reason: held.reason, message }];
}

/**
 * What the shadow windows of `args.env` would hold at `args.input.now`, one entry per window
 * that would hold; empty when none would (or none is in shadow mode). A shadow rule that
 * cannot be followed holds nothing and records nothing: it is a window being tried out.
 */
function shadowWindowHolds(args: GateArgs): ShadowHold[] {
  const found = windowsFor(args, true);
  if (!found.ok || found.windows.length === 0) return [];
  let closure;
  try {
    closure = closureAt(found.windows, args.input.now);
  } catch (error) {
    if (error instanceof WindowError) return [];
    throw error;
  }
  if (closure === undefined) return [];
  const denying = closure.denying.map((o) => o.window);
  const holding = denying.length > 0 ? denying : closure.outside.flat();
  const reason = denying.length > 0 ? Reasons.InDenyWindow : Reasons.OutsidePromotionWindow;
  const why = denying.length > 0 ? 'inside shadow deny window' : 'outside shadow allow window';
  return [...new Set(holding)].map((w) => ({
    gate: 'window' as const,
    name: w.name,
    reason,
    message: `${args.env.name} would wait: ${why} ${names([w])}`,
  }));
}

/** `decided` with what the shadow gates would hold (`wouldHold`), when it is a Promote. */
export function withShadowHolds(decided: EnvironmentDecision, args: GateArgs): EnvironmentDecision {
  if (decided.outcome !== 'Promote') return decided;
  const held = shadowHolds(args);
  return held.length === 0 ? decided : { ...decided, wouldHold: held };
}
