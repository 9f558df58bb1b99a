/**
 * What every policy gate takes and returns (policy-gates.ts asks them in order): apart from the
 * gates, so the gates and the list of them do not import each other.
 */
import type { PipelineEnvironment } from '../pipeline/pipeline-resource.js';
import type { EnvironmentDecision, EvaluationInput, TargetStatus } from './decisions.js';

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
