/**
 * When a promotion may happen: the policy gates (soak time, promotion windows, stop-the-line
 * halts, external checks) that can hold an environment whose upstream is ready at a revision
 * it does not run yet. Each gate is pure and takes time, stored records and check results as
 * inputs; the first that holds decides (a Waiting decision naming what it waits for and, where
 * it knows, when to look again as `retryAt`). Pipelines without these fields are never held.
 */
import type { PipelineEnvironment } from '../pipeline/pipeline-resource.js';
import type { EnvironmentDecision, EvaluationInput, TargetStatus } from './decisions.js';
import { checksGate } from './checks-gate.js';
import { haltsGate } from './halts-gate.js';
import { soakGate } from './soak.js';
import { windowsGate } from './windows-gate.js';

/** What a gate sees of one environment's decision. */
export interface GateArgs {
  input: EvaluationInput;
  env: PipelineEnvironment;
  /** The environment's index in the spec (>= 1: the source is never promoted). */
  index: number;
  /** The revision upstream is healthy at, which this environment would take. */
  revision: string;
  /** The upstream environment's aligned targets (all Healthy at `revision`). */
  upstream: readonly TargetStatus[];
  /** "staging is healthy at 1.2.3 on 2 targets": the start of a decision's message. */
  ready: string;
}

/** A gate: undefined lets the promotion through, a decision holds it. */
export type PolicyGate = (args: GateArgs) => EnvironmentDecision | undefined;

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
