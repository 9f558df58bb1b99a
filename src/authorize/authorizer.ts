/**
 * An authorization of one (pipeline, environment, revision) by one principal, from request to
 * record: the environment must be gated and the gate must allow the principal; the upstream
 * environment must be verified healthy at exactly that revision now (its targets are re-read
 * when not fresh); then the record is written to the Pipeline status (replays refused), an
 * Event and a log line say so, and the Pipeline is re-checked, which promotes once the gate is
 * met. An authorization never stands in for verification: it only lets a gated environment
 * take what the gateway itself verified upstream, and the promotion re-verifies again.
 */
import type { AuthorizationClaim, Principal } from '../auth/identity.js';
import type { PipelineCatalog } from '../catalog/catalog.js';
import { allows, gateOf } from '../evaluate/gate.js';
import type { EnvironmentDecision, GateView } from '../evaluate/decisions.js';
import type { StatusWriter } from '../kube/status-writer.js';
import type { PipelineWriter } from '../kube/ports.js';
import type { GatewayLogger } from '../log.js';
import { pipelineId, type PipelineId, type PipelineRef } from '../pipeline/id.js';
import { display } from '../pipeline/text.js';
import { rfc3339 } from '../pipeline/time.js';
import type { AuthorizationRecord, Pipeline } from '../pipeline/pipeline-resource.js';
import { evaluatePipeline, statusesFor, type EvaluationSettings } from '../reconcile/inputs.js';
import type { VerifiedTargets } from '../verify/verified-targets.js';
import { authorizationEvent } from './events.js';
import { authorizationChange, isUsed } from './record.js';

/** What an authorization needs. */
export interface AuthorizerDeps extends EvaluationSettings {
  catalog: PipelineCatalog;
  verified: VerifiedTargets;
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
}

/** The 202 answer: recorded (or, for an ungated environment and a CI job, a re-check asked). */
export interface AuthorizationAnswer {
  recorded: boolean;
  pipeline: string;
  environment: string;
  revision: string;
  principal: string;
  decision: 'approve' | 'reject';
  /** waiting (the gate needs more), approved (it is met: the promotion follows), rejected. */
  state: 'waiting' | 'approved' | 'rejected' | 'recheck';
  gate?: GateView;
}

const STATES: Readonly<Record<string, AuthorizationAnswer['state'] | undefined>> = {
  WaitingApproval: 'waiting',
  Promote: 'approved',
  Rejected: 'rejected',
};

/**
 * Why an authorization was not recorded. NotFound: no such Pipeline or environment. Forbidden:
 * the gate does not allow the principal. Replayed: the credential's id was used already.
 * NotWaiting: the environment is not deciding on that revision (`detail` says what it waits
 * for). Full: too many unexpired records. Contended: the status kept changing under the write.
 */
export type AuthorizationRefusal =
  | { reason: 'NotFound' | 'Forbidden' | 'Replayed' | 'Full' | 'Contended' }
  | { reason: 'NotWaiting'; detail: string };

/** An answer, or the named reason there is none; the ingress maps refusals to HTTP. */
export type AuthorizationResult =
  { ok: true; answer: AuthorizationAnswer } | { ok: false; refusal: AuthorizationRefusal };

/** Records authorizations; see the module comment. */
export class Authorizer {
  constructor(private readonly deps: AuthorizerDeps) {}

  /**
   * Authorizes `claim` by `principal` for `environment` of the Pipeline: the answer, or a
   * refusal (see AuthorizationRefusal). Rejects only when the management cluster fails.
   */
  async submit(
    ref: PipelineRef,
    environment: string,
    principal: Principal,
    claim: AuthorizationClaim,
  ): Promise<AuthorizationResult> {
    const result = await this.authorize(pipelineId(ref), environment, principal, claim);
    const outcome = result.ok
      ? result.answer.recorded
        ? 'recorded'
        : 'recheck'
      : result.refusal.reason;
    this.deps.onOutcome?.(principal.kind, outcome);
    return result;
  }

  private async authorize(
    id: PipelineId,
    environment: string,
    principal: Principal,
    claim: AuthorizationClaim,
  ): Promise<AuthorizationResult> {
    const pipeline = this.deps.catalog.get(id);
    const env = pipeline?.spec.environments.find((e) => e.name === environment);
    if (pipeline === undefined || env === undefined) return refuse('NotFound');
    const base = { pipeline: id, environment, revision: claim.revision, principal: principal.name };
    const gate = gateOf(pipeline.spec, env, this.deps.floors[environment]);
    if (gate === undefined) {
      if (principal.kind !== 'ci') return notWaiting(`${environment} has no approval gate`);
      // A CI job on an ungated environment only asks for a verified re-check, now.
      this.deps.recheck(id);
      const answer = {
        ...base,
        recorded: false,
        decision: claim.decision,
        state: 'recheck' as const,
      };
      return { ok: true, answer };
    }
    const record = recordOf(principal, claim, this.deps.now());
    if (!allows(gate, record)) return refuse('Forbidden');
    const stored = await this.verifiedNow(pipeline, id, environment);
    if (stored === undefined) return refuse('NotFound');
    // A used id is a replay whatever the state: answered before anything else is judged.
    if (record.jti !== undefined && isUsed(stored.status, record.jti)) return refuse('Replayed');
    const waiting = waitingFor(this.decide(stored, id, environment), claim.revision, environment);
    if (waiting !== undefined) return notWaiting(waiting);
    const written = await this.write(stored, id, environment, record);
    if (!written.ok) return written;
    const decision = this.decide(written.pipeline, id, environment);
    if (decision === undefined) return refuse('NotFound');
    const answer: AuthorizationAnswer = {
      ...base,
      recorded: true,
      decision: claim.decision,
      state: STATES[decision.outcome] ?? 'waiting',
      ...(decision.gate === undefined ? {} : { gate: decision.gate }),
    };
    await this.announce(written.pipeline, record, answer);
    this.deps.recheck(id);
    return { ok: true, answer };
  }

  /**
   * Re-reads the targets a decision for `environment` rests on (the environment itself and
   * every one upstream), and the Pipeline: an authorization is judged on the clusters' state
   * now, never on a stored read that an unannounced rollout may have overtaken.
   */
  private async verifiedNow(
    pipeline: Pipeline,
    id: PipelineId,
    environment: string,
  ): Promise<Pipeline | undefined> {
    const names = pipeline.spec.environments.map((e) => e.name);
    const upTo = new Set(names.slice(0, names.indexOf(environment) + 1));
    await this.deps.verified.readAll(
      this.deps.catalog.targetsOf(id).filter((t) => upTo.has(t.environment)),
    );
    return this.deps.status.read(pipeline.metadata);
  }

  private decide(
    pipeline: Pipeline,
    id: PipelineId,
    environment: string,
  ): EnvironmentDecision | undefined {
    const targets = statusesFor(this.deps.verified, pipeline, this.deps.catalog.targetsOf(id));
    const evaluation = evaluatePipeline(pipeline, targets, this.deps, this.deps.now());
    return evaluation.decisions.find((d) => d.environment === environment);
  }

  /** The record through the one status writer; re-judged on whatever a conflict brings. */
  private async write(
    pipeline: Pipeline,
    id: PipelineId,
    environment: string,
    record: AuthorizationRecord,
  ): Promise<{ ok: true; pipeline: Pipeline } | { ok: false; refusal: AuthorizationRefusal }> {
    const stillWaiting = (stored: Pipeline) =>
      stored.metadata.generation === pipeline.metadata.generation &&
      waitingFor(this.decide(stored, id, environment), record.revision, environment) === undefined;
    const change = authorizationChange(environment, record, this.deps.now(), stillWaiting);
    const result = await this.deps.status.apply(pipeline, change);
    switch (result.outcome) {
      case 'Written':
        return { ok: true, pipeline: result.pipeline };
      case 'Gone':
        return refuse('NotFound');
      case 'Contended':
        return refuse('Contended');
      case 'Kept':
        if (result.verdict === 'NotWaiting') {
          const decision = this.decide(result.pipeline, id, environment);
          return notWaiting(
            waitingFor(decision, record.revision, environment) ?? `${environment} moved on`,
          );
        }
        return refuse(result.verdict === 'Recorded' ? 'Contended' : result.verdict);
    }
  }

  /** One Event on the Pipeline and one log line per recorded authorization. */
  private async announce(
    pipeline: Pipeline,
    record: AuthorizationRecord,
    answer: AuthorizationAnswer,
  ): Promise<void> {
    const fields = { ...answer, gate: answer.gate?.summary, kind: record.kind };
    this.deps.logger.info(fields, 'authorization recorded');
    try {
      await this.deps.events.emitEvent(authorizationEvent(pipeline, record, answer));
    } catch {
      // The record is what counts; a lost Event costs the audit trail nothing (status has it).
      this.deps.logger.warn({ pipeline: answer.pipeline }, 'authorization event not recorded');
    }
  }
}

/** The record a claim by `principal` adds. */
function recordOf(
  principal: Principal,
  claim: AuthorizationClaim,
  now: number,
): AuthorizationRecord {
  return {
    principal: principal.name,
    kind: principal.kind,
    decision: claim.decision,
    revision: claim.revision,
    time: rfc3339(now),
    ...(principal.jti === undefined ? {} : { jti: principal.jti }),
    ...(principal.expiresAt === undefined ? {} : { expiresAt: rfc3339(principal.expiresAt) }),
    ...(principal.groups.length === 0 ? {} : { groups: [...principal.groups] }),
    ...(claim.comment === undefined ? {} : { comment: claim.comment }),
    ...(claim.statement === undefined ? {} : { statement: claim.statement }),
  };
}

/**
 * Undefined when `environment` is deciding on exactly `revision` behind its gate; otherwise
 * why not, for a NotWaiting answer (naming the revision it waits for, if any).
 */
function waitingFor(
  decision: EnvironmentDecision | undefined,
  revision: string,
  environment: string,
): string | undefined {
  if (decision === undefined) return `${environment} is not in the Pipeline`;
  const deciding = decision.gate !== undefined && decision.revision === revision;
  if (deciding && STATES[decision.outcome] !== undefined) return undefined;
  const waiting = decision.outcome === 'WaitingApproval' ? decision.revision : undefined;
  return waiting === undefined
    ? `${environment} is not waiting for an approval (${decision.reason}: ${display(decision.message, 200)})`
    : `${environment} is waiting for ${display(waiting)}, not ${display(revision)}`;
}

function refuse(reason: 'NotFound' | 'Forbidden' | 'Replayed' | 'Full' | 'Contended') {
  return { ok: false as const, refusal: { reason } };
}

function notWaiting(detail: string) {
  return { ok: false as const, refusal: { reason: 'NotWaiting' as const, detail } };
}
