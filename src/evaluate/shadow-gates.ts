/**
 * Shadow gates: a gate in `mode: Shadow` (a promotion window, fleet-wide or in the spec, a soak,
 * an approval or an external check) is evaluated as the gate would be, but holds nothing: what it would hold is recorded beside
 * the decision (`wouldHold`) and in the policy view, and counted when the promotion it would
 * have held runs (promotion_gateway_shadow_holds_total). Pure, like every gate.
 */
import type { EnvironmentDecision, ShadowHold } from './decisions.js';
import type { GateArgs } from './gate-args.js';
import { Reasons } from './reasons.js';
import { soakHold, soakOf } from './soak.js';
import { names, windowsFor } from './windows-gate.js';
import { closureAt, WindowError } from '../windows/promotion-window.js';
import { display } from '../text/text.js';
import { gateOf, missing, tally } from './gate.js';
import { forCombination } from './train-gate.js';
import { reasonOf, standingsOf } from './checks-gate.js';

/** Whether a window, the soak, the approval or a check of `args.env` is in `mode: Shadow` (needs no revision). */
export function hasShadowGates(args: GateArgs): boolean {
  if (shadowSoak(args) || shadowApproval(args)) return true;
  if ((args.env.promotion?.checks ?? []).some((c) => c.mode === 'Shadow')) return true;
  const found = windowsFor(args, true);
  return found.ok && found.windows.length > 0;
}

function shadowSoak(args: GateArgs): boolean {
  return soakOf(args.input.spec, args.env)?.mode === 'Shadow';
}

/**
 * What the shadow gates of `args.env` would hold now: its shadow windows, a shadow soak, a
 * shadow approval, then its shadow checks (the order the enforced gates are asked in).
 */
export function shadowHolds(args: GateArgs): ShadowHold[] {
  return [
    ...shadowWindowHolds(args),
    ...shadowSoakHolds(args),
    ...shadowApprovalHolds(args),
    ...shadowCheckHolds(args),
  ];
}

function shadowApproval(args: GateArgs): boolean {
  return args.env.promotion?.approval?.mode === 'Shadow';
}

/** What a shadow approval would hold: the revision without the approvals it asks for. */
function shadowApprovalHolds(args: GateArgs): ShadowHold[] {
  if (!shadowApproval(args)) return [];
  const { input, env, revision } = args;
  const gate = gateOf(input.spec, env, input.floors?.[env.name], { shadow: true });
  if (gate === undefined) return [];
  const records = forCombination(input.trains?.[env.name], input.authorizations?.[env.name] ?? []);
  const counted = tally(gate, records, revision);
  if (counted.satisfied) return [];
  const rejected = counted.rejectedBy !== undefined;
  const why = rejected
    ? `${display(counted.rejectedBy ?? '')} rejected ${display(revision)}`
    : `needs approval of ${display(revision)}: ${missing(gate, counted)}`;
  return [
    {
      gate: 'approval',
      name: 'approval',
      reason: rejected ? Reasons.ApprovalRejected : Reasons.ApprovalRequired,
      message: `${env.name} would wait (shadow approval): ${why}`,
    },
  ];
}

/** What the shadow checks would hold: each one without a current pass for the revision. */
function shadowCheckHolds(args: GateArgs): ShadowHold[] {
  return standingsOf(args, 'Shadow')
    .filter((s) => s.state !== 'Passed')
    .map((s) => ({
      gate: 'check' as const,
      name: s.name,
      reason: reasonOf([s]),
      message: `${args.env.name} would wait (shadow check): ${s.name} ${s.text}`,
    }));
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
