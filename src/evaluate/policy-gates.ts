/**
 * When a promotion may happen: the policy gates (soak time, promotion windows, stop-the-line
 * halts, external checks) that can hold an environment whose upstream is ready at a revision
 * it does not run yet. Each gate is pure and takes time, stored records and check results as
 * inputs; the first that holds decides (a Waiting decision naming what it waits for and, where
 * it knows, when to look again as `retryAt`). Pipelines without these fields are never held.
 */
import type { EnvironmentDecision } from './decisions.js';
import type { GateArgs, PolicyGate } from './gate-args.js';
import { checksGate } from './checks-gate.js';
import { haltsGate } from './halts-gate.js';
import { soakGate } from './soak.js';
import { windowsGate } from './windows-gate.js';

/** The gates in the order they are asked; the first that holds decides. */
export const POLICY_GATES: readonly PolicyGate[] = [haltsGate, windowsGate, soakGate, checksGate];

/** The decision of the first gate that holds the environment, or undefined when none does. */
export function heldBy(
  args: GateArgs,
  gates: readonly PolicyGate[] = POLICY_GATES,
): EnvironmentDecision | undefined {
  for (const gate of gates) {
    const held = gate(args);
    if (held !== undefined) return held;
  }
  return undefined;
}
