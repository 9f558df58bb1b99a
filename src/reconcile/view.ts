/**
 * What the gateway currently knows of one Pipeline, as GET /v1/pipelines serves it: the
 * verified state of every target, each environment's decision and reason, and its policy gates.
 */
import type { EnvironmentDecision, TargetStatus } from '../evaluate/decisions.js';
import type { PolicyView } from '../evaluate/policy-view.js';

/** The verified view of one Pipeline, as JSON. */
export interface PipelineView {
  namespace: string;
  name: string;
  /** Verified target state per environment name, in spec order. */
  targets: Readonly<Record<string, readonly TargetStatus[]>>;
  /** The latest evaluation, one decision per environment in spec order. */
  decisions: readonly EnvironmentDecision[];
  /**
   * Every policy gate of each environment that has one, from the same input as `decisions`
   * (evaluate/policy-view.ts); absent when no environment has one.
   */
  policy?: Readonly<Record<string, PolicyView>>;
  /** When the view was last evaluated (RFC 3339), if ever. */
  evaluatedAt?: string;
  [extra: string]: unknown;
}
