/**
 * The one evaluation of a Pipeline on this replica's reads: the reconciler, its promotions, its
 * confirmation rounds, the status view and the approval door hold the same PipelineEvaluator, so
 * they decide on one input (evaluation-input.ts) built from one set of settings, at one clock.
 * The `status` command evaluates stored Pipelines through one of its own (cli/status-policy.ts).
 */
import type { EnvironmentDecision, TargetStatus } from '../evaluate/decisions.js';
import { evaluate } from '../evaluate/evaluate.js';
import type { TrainGateInput } from '../evaluate/train-input.js';
import type { Pipeline } from '../pipeline/pipeline-resource.js';
import type { FleetWindow } from '../windows/promotion-window.js';
import {
  evaluatePipeline,
  type EvaluationSettings,
  type PipelineEvaluation,
} from './evaluation-input.js';

/** Evaluates Pipelines with one set of settings at the clock's `now`. */
export class PipelineEvaluator {
  constructor(
    private readonly settings: EvaluationSettings,
    private readonly now: () => number,
  ) {}

  /** The evaluation of `pipeline` on `targets` (its statuses, aligned as statusesFor does). */
  evaluate(pipeline: Pipeline, targets: Record<string, TargetStatus[]>): PipelineEvaluation {
    return evaluatePipeline(pipeline, targets, this.settings, this.now());
  }

  /**
   * The decision for `env` with its train gate replaced by `gate` (a probe: are the member's own
   * gates met for its release revision?); undefined when the spec has no such environment.
   */
  probe(
    pipeline: Pipeline,
    targets: Record<string, TargetStatus[]>,
    env: string,
    gate: TrainGateInput,
  ): EnvironmentDecision | undefined {
    const { input } = this.evaluate(pipeline, targets);
    const probed = evaluate({ ...input, trains: { ...input.trains, [env]: gate } });
    return probed.decisions.find((d) => d.environment === env);
  }

  /**
   * This evaluator at a fixed instant (ms), with the fleet windows replaced when `windows` is
   * given: a what-if (what-if.ts) decides with everything else of these settings.
   */
  at(now: number, windows?: readonly FleetWindow[]): PipelineEvaluator {
    const settings = windows === undefined ? this.settings : { ...this.settings, windows };
    return new PipelineEvaluator(settings, () => now);
  }
}
