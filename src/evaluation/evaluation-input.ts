/**
 * The evaluator's input, assembled in one place for every caller that evaluates a Pipeline (the
 * reconciler and its confirmation rounds, the status view, the approval door and the `status`
 * command), each through a PipelineEvaluator (pipeline-evaluator.ts). The Pipeline's spec and
 * stored records, this replica's reads (statuses, soak and order inputs), the external checks'
 * results and the windows go in; the pure evaluator decides.
 */
import type { CatalogTarget } from '../catalog/targets.js';
import type { CheckBook } from '../checks/check-book.js';
import { evaluate } from '../evaluate/evaluate.js';
import { firstVerifiedOf } from '../evaluate/promotion-order.js';
import type { GateFloor, KnownDigest, StaleApproval } from '../evaluate/gate.js';
import type {
  Evaluation,
  EvaluationInput,
  RetryPolicy,
  TargetStatus,
} from '../evaluate/decisions.js';
import type { EnvironmentStatus, Pipeline } from '../pipeline/pipeline-resource.js';
import { pipelineIdOf, type PipelineId } from '../pipeline/id.js';
import type { Announcement } from '../verify/announcements.js';
import type { VerifiedTargets } from '../verify/verified-targets.js';
import { soakInputOf, type ReadHistories } from './soak-input.js';
import { windowsInputOf } from './windows-input.js';
import type { FleetWindow } from '../windows/promotion-window.js';
import type { BreakGlassPolicy } from '../evaluate/decisions.js';

/**
 * Stored statuses per environment, aligned with the spec's targets. A target never read is
 * Unknown (NotVerified), so it blocks decisions like any unreadable one.
 */
export function statusesFor(
  verified: Pick<VerifiedTargets, 'status'>,
  pipeline: Pipeline,
  targets: readonly CatalogTarget[],
): Record<string, TargetStatus[]> {
  const out: Record<string, TargetStatus[]> = {};
  for (const env of pipeline.spec.environments) out[env.name] = [];
  for (const t of targets) {
    (out[t.environment] ??= [])[t.index] = verified.status(t) ?? notVerified(t);
  }
  return out;
}

/** When each target's stored status was read (ms), aligned like statusesFor; undefined = never. */
export function observedTimes(
  verified: VerifiedTargets,
  pipeline: Pipeline,
  targets: readonly CatalogTarget[],
): Record<string, (number | undefined)[]> {
  const out: Record<string, (number | undefined)[]> = {};
  for (const env of pipeline.spec.environments) out[env.name] = [];
  for (const t of targets) (out[t.environment] ??= [])[t.index] = verified.readAt(t);
  return out;
}

/**
 * This replica's word on whether each target's state was announced by an event (see
 * verify/announcements.ts), aligned like statusesFor; undefined = no word either way.
 */
export function announcementsOf(
  verified: VerifiedTargets,
  pipeline: Pipeline,
  targets: readonly CatalogTarget[],
): Record<string, (Announcement | undefined)[]> {
  const out: Record<string, (Announcement | undefined)[]> = {};
  for (const env of pipeline.spec.environments) out[env.name] = [];
  for (const t of targets) (out[t.environment] ??= [])[t.index] = verified.announcement(t.key);
  return out;
}

/** What the evaluator takes from the gateway's configuration. */
export interface EvaluationSettings {
  policy: RetryPolicy;
  /** Approval floors by environment name. */
  floors: Readonly<Record<string, GateFloor | undefined>>;
  /** The external checks' results this replica has read (src/checks); absent = none. */
  checks?: Pick<CheckBook, 'resultsFor'> | undefined;
  /** This replica's reads beyond their statuses, for the soak (soak-input.ts); absent = none. */
  history?: ReadHistories | undefined;
  /** The operator's promotion windows (config promotion.windows, compiled); absent = none. */
  windows?: readonly FleetWindow[] | undefined;
  /** The operator's break-glass policy (config approvals.breakGlass); absent = disabled. */
  breakGlass?: BreakGlassPolicy | undefined;
  /** The configured approvers' names (who may roll back by default); absent = any person. */
  approvers?: readonly string[] | undefined;
  /** The latest preview digests this replica computed (src/preview); absent = none known. */
  previews?: PreviewDigests | undefined;
  /** The release-train gates of a Pipeline (train-gates.ts); absent = no trains. */
  trains?: { gatesFor(pipeline: Pipeline): EvaluationInput['trains'] } | undefined;
}

/** The digest of the change promoting `revision` to an environment would make, and when learnt. */
export interface PreviewDigests {
  latestDigest(id: PipelineId, environment: string, revision: string): KnownDigest | undefined;
}

/** An evaluation and the input it decided on, so that what explains it decides on the same. */
export interface PipelineEvaluation extends Evaluation {
  readonly input: EvaluationInput;
}

/** Runs the pure evaluator on a Pipeline's spec and its stored records and authorizations. */
export function evaluatePipeline(
  pipeline: Pipeline,
  targets: Record<string, TargetStatus[]>,
  settings: EvaluationSettings,
  now: number,
): PipelineEvaluation {
  const input = evaluationInputOf(pipeline, targets, settings, now);
  return { ...evaluate(input), input };
}

/** The evaluator's input: the Pipeline's spec, records and halts, this replica's reads and results. */
export function evaluationInputOf(
  pipeline: Pipeline,
  targets: Record<string, TargetStatus[]>,
  settings: EvaluationSettings,
  now: number,
): EvaluationInput {
  const stored = pipeline.status?.environments;
  const names = pipeline.spec.environments.map((e) => e.name);
  return {
    spec: pipeline.spec,
    targets,
    records: Object.fromEntries(names.map((n) => [n, stored?.[n]?.promotion])),
    authorizations: Object.fromEntries(names.map((n) => [n, stored?.[n]?.approvals])),
    holds: Object.fromEntries(names.map((n) => [n, stored?.[n]?.holds])),
    floors: settings.floors,
    policy: settings.policy,
    now,
    ...checksOf(pipeline, settings),
    ...soakInputOf(pipeline, targets, settings.history, now),
    ...orderInputOf(pipeline, targets, settings.history, now),
    ...windowsInputOf(pipeline, settings.windows),
    ...(pipeline.status?.halts === undefined ? {} : { halts: pipeline.status.halts }),
    ...(settings.breakGlass === undefined ? {} : { breakGlass: settings.breakGlass }),
    ...(settings.approvers === undefined ? {} : { approvers: settings.approvers }),
    ...previewDigestsOf(pipeline, settings.previews),
    ...staleApprovalsOf(pipeline),
    ...trainsOf(pipeline, settings.trains),
  };
}

/** The train gates of the Pipeline's environments, when it belongs to a train. */
function trainsOf(
  pipeline: Pipeline,
  trains: EvaluationSettings['trains'],
): Pick<EvaluationInput, 'trains'> {
  const gates = trains?.gatesFor(pipeline);
  return gates === undefined ? {} : { trains: gates };
}

/** The approvals each stored wait records as stale (with the digest they were bound to). */
function staleApprovalsOf(pipeline: Pipeline): Pick<EvaluationInput, 'staleApprovals'> {
  const out: Record<string, { revision: string; approvals: StaleApproval[] }> = {};
  for (const [env, stored] of Object.entries(pipeline.status?.environments ?? {})) {
    const waiting = stored.waitingApproval;
    const approvals = (waiting?.previewChanged ?? []).flatMap(({ principal, digest }) =>
      digest === undefined ? [] : [{ principal, digest }],
    );
    if (waiting !== undefined && approvals.length > 0)
      out[env] = { revision: waiting.revision, approvals };
  }
  return Object.keys(out).length === 0 ? {} : { staleApprovals: out };
}

/**
 * For each revision an approval bound to a preview digest was recorded for, the digest of that
 * change as this replica last computed it: the evaluator counts such an approval only while
 * the two agree. Nothing is looked up for a Pipeline without such approvals.
 */
function previewDigestsOf(
  pipeline: Pipeline,
  previews: PreviewDigests | undefined,
): Pick<EvaluationInput, 'previewDigests'> {
  if (previews === undefined) return {};
  const id = pipelineIdOf(pipeline);
  const out: Record<string, Record<string, KnownDigest>> = {};
  for (const [env, stored] of Object.entries(pipeline.status?.environments ?? {})) {
    for (const record of stored.approvals ?? []) {
      if (record.previewDigest === undefined) continue;
      const digest = previews.latestDigest(id, env, record.revision);
      if (digest !== undefined) (out[env] ??= {})[record.revision] = digest;
    }
  }
  return Object.keys(out).length === 0 ? {} : { previewDigests: out };
}

/**
 * The evaluator's inputs for the order of revisions and for drift: each environment's stored
 * history and `verified` list, and when each environment but the last was first verified at the
 * revision it runs (evaluate/promotion-order.ts), from the status and this replica's reads.
 */
function orderInputOf(
  pipeline: Pipeline,
  targets: Record<string, TargetStatus[]>,
  history: ReadHistories | undefined,
  now: number,
): Pick<EvaluationInput, 'firstVerified' | 'histories'> {
  const stored = pipeline.status?.environments;
  const reads = history?.historyOf(pipeline);
  const firstVerified: Record<string, number | undefined> = {};
  const histories: Record<string, Pick<EnvironmentStatus, 'history' | 'verified'>> = {};
  pipeline.spec.environments.forEach((env, i, all) => {
    const kept = stored?.[env.name];
    if (kept !== undefined)
      histories[env.name] = { history: kept.history, verified: kept.verified };
    if (i === all.length - 1) return;
    const run =
      reads === undefined
        ? undefined
        : { readAt: reads.readAt[env.name] ?? [], streaks: reads.streaks[env.name] ?? [] };
    firstVerified[env.name] = firstVerifiedOf(targets[env.name] ?? [], kept?.verified, run, now);
  });
  return { firstVerified, histories };
}

function checksOf(
  pipeline: Pipeline,
  settings: EvaluationSettings,
): Pick<EvaluationInput, 'checks'> {
  const checks = settings.checks?.resultsFor(pipeline);
  return checks === undefined ? {} : { checks };
}

function notVerified(t: CatalogTarget): TargetStatus {
  return {
    location: t.location,
    health: 'Unknown',
    reason: 'NotVerified',
    message: 'the target has not been read yet',
  };
}
