/**
 * The pure promotion evaluator: verified target state, stored promotion records and `now` in,
 * one decision per environment out. No I/O and no clock, so every decision is replayable.
 */
import type { PipelineEnvironment } from '../pipeline/pipeline-resource.js';
import { Reasons } from './reasons.js';
import { decideFromRecord, normalisePolicy } from './retry.js';
import { display } from '../text/text.js';
import { gateOf } from './gate.js';
import { decideGated } from './gated-decision.js';
import { heldBy } from './policy-gates.js';
import { decidePromoted } from './drift.js';
import { heldByRecords, upToDate } from './record-holds.js';
import { decideRollback } from './rollback.js';
import { withVerification } from './automatic-rollback.js';
import { waitForUpstream } from './upstream-waits.js';
import { heldRevision } from './revision-holds.js';
import { withShadowHolds } from './shadow-gates.js';
import { withTrainGate } from './train-gate.js';
import { alignTargets, count, describeTargets, hasUnknown, summarise } from './target-states.js';
import type {
  EnvironmentDecision,
  Evaluation,
  EvaluationInput,
  RetryPolicy,
  TargetStatus,
} from './decisions.js';

interface Context {
  input: EvaluationInput;
  policy: RetryPolicy;
  /** Aligned statuses per environment, in spec order. */
  targets: TargetStatus[][];
}

/**
 * Decide every environment of `input.spec` in spec order; envs[0] is the source and is never
 * promoted. Deterministic and side-effect free: `input` is only read.
 */
export function evaluate(input: EvaluationInput): Evaluation {
  const envs = input.spec.environments;
  const names = envs.map((env) => env.name);
  const targets = envs.map((env) =>
    alignTargets(
      env,
      input.targets[env.name],
      names.indexOf(env.name) !== names.lastIndexOf(env.name),
    ),
  );
  const ctx: Context = { input, policy: normalisePolicy(input.policy), targets };
  return {
    decisions: envs.map((env, i) =>
      i === 0
        ? decideSource(env, targets[0] ?? [])
        : withTrainGate(input.trains?.[env.name], withVerification(input, i, decideStage(ctx, i))),
    ),
  };
}

/** The decisions whose outcome is Promote or RollBack (each claimed and run), in spec order. */
export function promotions(evaluation: Evaluation): EnvironmentDecision[] {
  return evaluation.decisions.filter((d) => d.outcome === 'Promote' || d.outcome === 'RollBack');
}

/** The earliest `retryAt` of any decision (ms), or undefined when nothing needs a timed re-check. */
export function nextWakeup(evaluation: Evaluation): number | undefined {
  let earliest: number | undefined;
  for (const d of evaluation.decisions) {
    if (
      d.retryAt !== undefined &&
      Number.isFinite(d.retryAt) &&
      (earliest === undefined || d.retryAt < earliest)
    ) {
      earliest = d.retryAt;
    }
  }
  return earliest;
}

function decideSource(env: PipelineEnvironment, targets: TargetStatus[]): EnvironmentDecision {
  const base = { environment: env.name, outcome: 'Source' as const };
  const summary = summarise(targets);
  switch (summary.kind) {
    case 'NoTargets':
      return { ...base, reason: Reasons.NoTargets, message: `${env.name} lists no targets` };
    case 'Unknown':
      return {
        ...base,
        reason: Reasons.TargetUnknown,
        message: `${env.name} cannot be verified: ${describeTargets(summary.targets)} unknown`,
      };
    case 'NotReady':
      return {
        ...base,
        reason: Reasons.NotReady,
        message: `${env.name} is not ready: ${describeTargets(summary.targets)}`,
      };
    case 'Mismatch':
      return {
        ...base,
        reason: Reasons.RevisionMismatch,
        message: `${env.name} targets run different revisions: ${summary.revisions.map((r) => display(r)).join(', ')}`,
      };
    case 'NoRevision':
      return {
        ...base,
        reason: Reasons.NoRevision,
        message: `${env.name} is healthy but reports no revision`,
      };
    case 'Ready':
      return {
        ...base,
        revision: summary.revision,
        reason: Reasons.Ready,
        message: `${env.name} is healthy at ${display(summary.revision)} on ${count(targets.length)}`,
      };
  }
}

function decideStage(ctx: Context, i: number): EnvironmentDecision {
  const env = ctx.input.spec.environments[i];
  const upstreamEnv = ctx.input.spec.environments[i - 1];
  const own = ctx.targets[i];
  const upstream = ctx.targets[i - 1];
  // Unreachable for 0 < i < length; keeps the types honest without non-null assertions.
  if (
    env === undefined ||
    upstreamEnv === undefined ||
    own === undefined ||
    upstream === undefined
  ) {
    throw new RangeError(`environment index ${i} out of range`);
  }
  const base = { environment: env.name };
  // A rollback reads only its own environment: an upstream that cannot be read does not stop it.
  const ownKnown = own.length > 0 && !hasUnknown(own);
  const rollback = ownKnown ? decideRollback(ctx.input, i, own) : undefined;
  if (rollback !== undefined) return rollback;
  const blocked = ctx.targets.slice(0, i).findIndex(hasUnknown);
  if (blocked >= 0) {
    const at = ctx.input.spec.environments[blocked]?.name ?? '';
    return {
      ...base,
      outcome: 'Unknown',
      reason: Reasons.UpstreamUnknown,
      message: `${at} has targets that cannot be verified; deciding nothing for ${env.name}`,
    };
  }
  if (own.length === 0) {
    return {
      ...base,
      outcome: 'Unknown',
      reason: Reasons.NoTargets,
      message: `${env.name} lists no targets`,
    };
  }
  if (hasUnknown(own)) {
    return {
      ...base,
      outcome: 'Unknown',
      reason: Reasons.TargetUnknown,
      message: `${env.name} cannot be verified: ${describeTargets(own.filter((t) => t.health === 'Unknown'))} unknown`,
    };
  }
  const source = summarise(upstream);
  if (source.kind !== 'Ready') return waitForUpstream(env.name, upstreamEnv.name, source);
  const ready = `${upstreamEnv.name} is healthy at ${display(source.revision)} on ${count(upstream.length)}`;
  const decided = withShadowHolds(decideAgainst(ctx, env, own, ready, source.revision), {
    ...{ input: ctx.input, env, index: i, revision: source.revision, upstream, ready },
  });
  // A claim records the revision's place in the order of revisions (promotion-order.ts).
  const verifiedAt = ctx.input.firstVerified?.[upstreamEnv.name];
  return decided.outcome === 'Promote' && verifiedAt !== undefined
    ? { ...decided, upstreamVerifiedAt: verifiedAt }
    : decided;
}

// Steps 4-7: upstream is healthy at R; compare with what this environment runs and has recorded.
function decideAgainst(
  ctx: Context,
  env: PipelineEnvironment,
  own: TargetStatus[],
  ready: string,
  revision: string,
): EnvironmentDecision {
  const index = ctx.input.spec.environments.indexOf(env);
  const upstreamName = ctx.input.spec.environments[index - 1]?.name ?? '';
  const hold = { input: ctx.input, policy: ctx.policy, env, upstream: upstreamName, revision };
  const stored = ctx.input.histories?.[env.name];
  if (own.every((t) => t.revision === revision)) return upToDate(hold, own, stored);
  const held = heldByRecords(hold) ?? heldRevision(ctx.input, index, revision, ready);
  if (held !== undefined) return held;
  const record = ctx.input.records[env.name];
  const fromRecord = decideFromRecord(env.name, revision, record, ctx.policy, ctx.input.now);
  const upstream = ctx.targets[index - 1] ?? [];
  const args = { input: ctx.input, env, index, revision, upstream, ready };
  // A retry is an automatic promotion too: a halt, a freeze, a soak reset or a failing check
  // holds it as it would hold the first attempt. So is a drift's correction.
  if (fromRecord?.outcome === 'Promote') return heldBy(args) ?? fromRecord;
  if (record !== undefined && fromRecord?.reason === Reasons.PromotionSucceeded) {
    const promoted = decidePromoted({
      spec: ctx.input.spec,
      env,
      record,
      own,
      stored,
      policy: ctx.policy,
      now: ctx.input.now,
      waiting: fromRecord,
    });
    return promoted.outcome === 'Promote' ? (heldBy(args) ?? promoted) : promoted;
  }
  if (fromRecord !== undefined) return fromRecord;
  const gated = heldBy(args);
  if (gated !== undefined) return gated;
  const gate = gateOf(ctx.input.spec, env, ctx.input.floors?.[env.name]);
  if (gate !== undefined) return decideGated(ctx.input, env, gate, ready, revision);
  return {
    environment: env.name,
    revision,
    outcome: 'Promote',
    attempt: 1,
    reason: Reasons.UpstreamReady,
    message: `${ready}; promoting ${env.name}`,
  };
}
