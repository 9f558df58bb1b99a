/**
 * An authorization of one (pipeline, environment, revision) by one principal, from request to
 * record: the environment must be gated and the gate must allow the principal; the upstream
 * environment must be verified healthy at exactly that revision now (its targets are re-read
 * when not fresh); then the record is written to the Pipeline status (replays refused), an
 * Event and a log line say so, and the Pipeline is re-checked, which promotes once the gate is
 * met. An authorization never stands in for verification: it only lets a gated environment
 * take what the gateway itself verified upstream, and the promotion re-verifies again.
 * A break-glass (break-glass-access.ts) goes the same way, judged on its own quorum and on a halt or a
 * window holding the environment at that revision instead of the gate.
 */
import type { AuthorizationClaim, Principal } from '../auth/identity.js';
import type { PipelineCatalog } from '../catalog/catalog.js';
import type { CatalogTarget } from '../catalog/targets.js';
import { allows, gateOf } from '../evaluate/gate.js';
import { ClusterUnavailable, UNREACHABLE_READS } from '../kube/errors.js';
import { StatusWritesHeld, type StatusWriter } from '../kube/status-writer.js';
import type { PipelineWriter } from '../kube/ports.js';
import type { GatewayLogger } from '../log.js';
import { pipelineId, type PipelineId, type PipelineRef } from '../pipeline/id.js';
import { jsonEqual } from '../json/json-equal.js';
import type { AuthorizationRecord, Pipeline } from '../pipeline/pipeline-resource.js';
import type { PipelineEvaluator } from '../evaluation/pipeline-evaluator.js';
import type { BreakGlassPolicy } from '../evaluate/decisions.js';
import type { GateFloor } from '../evaluate/gate.js';
import type { VerifiedTargets } from '../verify/verified-targets.js';
import {
  baseOf,
  notWaiting,
  recordOf,
  refuse,
  STATES,
  waitingFor,
  type AuthorizationAnswer,
  type AuthorizationRefusal,
  type AuthorizationResult,
  type Judge,
} from './answers.js';
import { breakGlassRefusal, breakGlassView, breakGlassWaiting } from './break-glass-access.js';
import { authorizationEvent } from './approval-events.js';
import { authorizationChange, isUsed } from './approval-record.js';
import { previewRefusal, type PreviewsNow } from './preview-binding.js';
import { requestDecisions, type Decide } from './request-decisions.js';

export type { AuthorizationAnswer, AuthorizationRefusal, AuthorizationResult } from './answers.js';

/** What an authorization needs. */
export interface AuthorizerDeps {
  catalog: Pick<PipelineCatalog, 'get' | 'targetsOf'>;
  verified: Pick<VerifiedTargets, 'readAll' | 'status'>;
  /**
   * The one evaluation of a Pipeline (evaluation/pipeline-evaluator.ts), the reconciler's and the
   * status view's: a request is judged as the promotion it allows will be decided.
   */
  evaluator: Pick<PipelineEvaluator, 'evaluate'>;
  /** Approval floors by environment name (config authorizations.floors): who a gate allows. */
  floors: Readonly<Record<string, GateFloor | undefined>>;
  /** The operator's break-glass policy (config authorizations.breakGlass); absent = disabled. */
  breakGlass?: BreakGlassPolicy | undefined;
  /** The one status writer (records) and its fresh reads. */
  status: Pick<StatusWriter, 'apply' | 'read'>;
  /** Events about the Pipeline. */
  events: Pick<PipelineWriter, 'emitEvent'>;
  logger: GatewayLogger;
  now: () => number;
  /** Asks for a re-check of the Pipeline (it promotes once the gate is met). */
  recheck: (id: PipelineId) => void;
  /** Counts each answer by door and outcome (metrics). */
  onOutcome?: (kind: Principal['kind'], outcome: string) => void;
  /** Told when a record was written but not kept (the installed CRD pruned it): check the CRD. */
  onUnkept?: () => void;
  /** The change a promotion would make now, for approvals bound to a preview's digest. */
  previews?: PreviewsNow | undefined;
}

/** One authorization being recorded, and the decisions it is judged on. */
interface Ask {
  environment: string;
  record: AuthorizationRecord;
  judge: Judge;
  decide: Decide;
}

/** Records authorizations; see the module comment. */
export class Authorizer {
  constructor(private readonly deps: AuthorizerDeps) {}

  /**
   * Authorizes `claim` by `principal` for `environment` of the Pipeline: the answer, or a
   * refusal (see AuthorizationRefusal). Rejects only when the management cluster fails, or with
   * ClusterUnavailable when a target it re-read could not be reached.
   */
  async submit(
    ref: PipelineRef,
    environment: string,
    principal: Principal,
    claim: AuthorizationClaim,
  ): Promise<AuthorizationResult> {
    const result = await this.authorize(pipelineId(ref), environment, principal, claim);
    this.deps.onOutcome?.(principal.kind, outcomeOf(result));
    return result;
  }

  private authorize(
    id: PipelineId,
    environment: string,
    principal: Principal,
    claim: AuthorizationClaim,
  ): Promise<AuthorizationResult> | AuthorizationResult {
    const pipeline = this.deps.catalog.get(id);
    if (!pipeline?.spec.environments.some((e) => e.name === environment)) return refuse('NotFound');
    const record = recordOf(principal, claim, this.deps.now());
    if (claim.decision === 'break-glass') {
      const forbidden = breakGlassRefusal(this.deps.breakGlass, pipeline, environment, record);
      if (forbidden !== undefined) return refuse('Forbidden', forbidden);
      return this.record(pipeline, id, environment, record, breakGlassWaiting);
    }
    return this.approve(pipeline, id, environment, record);
  }

  /** An approval, rejection or CI trigger: judged by the environment's approval gate. */
  private approve(
    pipeline: Pipeline,
    id: PipelineId,
    environment: string,
    record: AuthorizationRecord,
  ): Promise<AuthorizationResult> | AuthorizationResult {
    const env = pipeline.spec.environments.find((e) => e.name === environment);
    const gate = env && gateOf(pipeline.spec, env, this.deps.floors[environment]);
    if (gate === undefined) {
      if (record.kind !== 'ci') return notWaiting(`${environment} has no approval gate`);
      // A CI job on an ungated environment only asks for a verified re-check, now.
      this.deps.recheck(id);
      const answer: AuthorizationAnswer = {
        ...baseOf(id, environment, record),
        recorded: false,
        state: 'recheck',
      };
      return { ok: true, answer };
    }
    if (!allows(gate, record)) return refuse('Forbidden');
    return this.record(pipeline, id, environment, record, waitingFor);
  }

  /**
   * Records `record` once the environment, re-verified now, lets it count (`judge`), then
   * answers, announces and re-checks the Pipeline.
   */
  private async record(
    pipeline: Pipeline,
    id: PipelineId,
    environment: string,
    record: AuthorizationRecord,
    judge: Judge,
  ): Promise<AuthorizationResult> {
    const read = this.upstreamOf(pipeline, id, environment);
    const stored = await this.verifiedNow(pipeline, read);
    if (stored === undefined) return refuse('NotFound');
    // A used id is a replay whatever the state: answered before anything else is judged.
    if (record.jti !== undefined && isUsed(stored.status, record.jti)) return refuse('Replayed');
    // Each Pipeline seen from here on is evaluated once: the stored one (judged here and by the
    // write's first attempt), any a conflict brings, and the one written (for the answer).
    const decide = requestDecisions(this.deps, id, environment);
    const waiting = judge(decide(stored), record.revision, environment);
    if (waiting !== undefined) {
      this.requireReachable(read);
      return notWaiting(waiting);
    }
    const changed = await previewRefusal(this.deps.previews, stored, environment, record);
    if (changed !== undefined) return { ok: false, refusal: changed };
    const written = await this.write(stored, { environment, record, judge, decide });
    if (!written.ok) return written;
    const decision = decide(written.pipeline);
    if (decision === undefined) return refuse('NotFound');
    const glass =
      record.decision === 'break-glass'
        ? breakGlassView(
            this.deps.breakGlass,
            written.pipeline,
            record,
            environment,
            this.deps.now(),
          )
        : undefined;
    const answer: AuthorizationAnswer = {
      ...baseOf(id, environment, record),
      recorded: true,
      state: STATES[decision.outcome] ?? 'waiting',
      ...(decision.gate === undefined ? {} : { gate: decision.gate }),
      ...(glass === undefined ? {} : { breakGlass: glass }),
    };
    await this.announce(written.pipeline, record, answer);
    this.deps.recheck(id);
    return { ok: true, answer };
  }

  /** The targets a decision for `environment` rests on: its own and every one upstream. */
  private upstreamOf(pipeline: Pipeline, id: PipelineId, environment: string): CatalogTarget[] {
    const names = pipeline.spec.environments.map((e) => e.name);
    const upTo = new Set(names.slice(0, names.indexOf(environment) + 1));
    return this.deps.catalog.targetsOf(id).filter((t) => upTo.has(t.environment));
  }

  /**
   * Re-reads `targets` and the Pipeline: an authorization is judged on the clusters' state now,
   * never on a stored read that an unannounced rollout may have overtaken.
   */
  private async verifiedNow(
    pipeline: Pipeline,
    targets: readonly CatalogTarget[],
  ): Promise<Pipeline | undefined> {
    await this.deps.verified.readAll(targets);
    return this.deps.status.read(pipeline.metadata);
  }

  /**
   * Throws ClusterUnavailable (answered 503 Unavailable) when a target just re-read is Unknown
   * because its cluster could not be reached: a refusal judged on that read would say what the
   * environment waits for without knowing it, where a retry once the cluster answers can tell.
   */
  private requireReachable(targets: readonly CatalogTarget[]): void {
    for (const target of targets) {
      const status = this.deps.verified.status(target);
      if (status?.health === 'Unknown' && UNREACHABLE_READS.has(status.reason))
        throw new ClusterUnavailable(target.location.cluster, status.reason);
    }
  }

  /** The record through the one status writer; re-judged on whatever a conflict brings. */
  private async write(
    pipeline: Pipeline,
    ask: Ask,
  ): Promise<{ ok: true; pipeline: Pipeline } | { ok: false; refusal: AuthorizationRefusal }> {
    const { environment, record, judge, decide } = ask;
    const stillWaiting = (stored: Pipeline) =>
      stored.metadata.generation === pipeline.metadata.generation &&
      judge(decide(stored), record.revision, environment) === undefined;
    const change = authorizationChange(environment, record, this.deps.now(), stillWaiting);
    // The API server's own answer: an authorization answered as recorded must count.
    const result = await this.deps.status.apply(pipeline, change, 'stored');
    switch (result.outcome) {
      case 'Written':
        this.requireKept(result.pipeline, environment, record);
        return { ok: true, pipeline: result.pipeline };
      case 'Gone':
        return refuse('NotFound');
      case 'Contended':
        return refuse('Contended');
      case 'Kept':
        if (result.verdict === 'NotWaiting') {
          const decision = decide(result.pipeline);
          return notWaiting(
            judge(decision, record.revision, environment) ?? `${environment} moved on`,
          );
        }
        return refuse(result.verdict === 'Recorded' ? 'Contended' : result.verdict);
    }
  }

  /**
   * Throws StatusWritesHeld (answered 503 StatusHeld) when the stored Pipeline does not hold
   * `record` as written: the installed CRD pruned it, so it would not count.
   */
  private requireKept(stored: Pipeline, environment: string, record: AuthorizationRecord): void {
    const kept = stored.status?.environments?.[environment]?.approvals ?? [];
    if (kept.some((r) => jsonEqual(r, record))) return;
    this.deps.onUnkept?.();
    throw new StatusWritesHeld([`status.environments.${environment}.approvals`]);
  }

  /**
   * One Event on the Pipeline and one log line per recorded authorization; a break-glass is
   * a warning with its reason, so an audit of the logs finds every one.
   */
  private async announce(
    pipeline: Pipeline,
    record: AuthorizationRecord,
    answer: AuthorizationAnswer,
  ): Promise<void> {
    const fields = { ...answer, gate: answer.gate?.summary, kind: record.kind };
    if (record.decision === 'break-glass') {
      const glass = { breakGlass: answer.breakGlass?.summary, reason: record.comment };
      this.deps.logger.warn({ ...fields, ...glass }, 'break-glass recorded');
    } else this.deps.logger.info(fields, 'authorization recorded');
    try {
      await this.deps.events.emitEvent(authorizationEvent(pipeline, record, answer));
    } catch {
      // The record is what counts; a lost Event costs the audit trail nothing (status has it).
      this.deps.logger.warn({ pipeline: answer.pipeline }, 'authorization event not recorded');
    }
  }
}

/** The metric's outcome: a recorded break-glass is counted apart, for alerts to watch. */
function outcomeOf(result: AuthorizationResult): string {
  if (!result.ok) return result.refusal.reason;
  if (!result.answer.recorded) return 'recheck';
  return result.answer.decision === 'break-glass' ? 'break-glass' : 'recorded';
}
