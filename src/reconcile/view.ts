/**
 * What the gateway currently knows of one Pipeline, as GET /v1/pipelines serves it: the
 * verified state of every target and each environment's decision and reason.
 */
import type { EnvironmentDecision, TargetStatus } from '../evaluate/decisions.js';

/** The verified view of one Pipeline, as JSON. */
export interface PipelineView {
  namespace: string;
  name: string;
  /** Verified target state per environment name, in spec order. */
  targets: Readonly<Record<string, readonly TargetStatus[]>>;
  /** The latest evaluation, one decision per environment in spec order. */
  decisions: readonly EnvironmentDecision[];
  /** When the view was last evaluated (RFC 3339), if ever. */
  evaluatedAt?: string;
  [extra: string]: unknown;
}
