/**
 * An authorization of one (pipeline, environment, revision) by one principal, from request to
 * record: the environment must be gated and the gate must allow the principal; the upstream
 * environment must be verified healthy at exactly that revision now (its targets are re-read
 * when not fresh); then the record is written to the Pipeline status (replays refused), an
 * Event and a log line say so, and the Pipeline is re-checked, which promotes once the gate is
 * met. An authorization never stands in for verification: it only lets a gated environment
 * take what the gateway itself verified upstream, and the promotion re-verifies again.
 */
import type { AuthorizationClaim, Principal } from '../auth/types.js';
import type { PipelineCatalog } from '../catalog/catalog.js';
import { allows, gateOf } from '../evaluate/gate.js';
import type { EnvironmentDecision, GateView } from '../evaluate/types.js';
import { GatewayError } from '../errors.js';
import type { PipelineWriter } from '../kube/types.js';
import type { GatewayLogger } from '../log.js';
import { pipelineId, type PipelineId, type PipelineRef } from '../pipeline/id.js';
import { readPipeline } from '../pipeline/status-write.js';
import { display } from '../pipeline/text.js';
import { rfc3339 } from '../pipeline/time.js';
import type { AuthorizationRecord, Pipeline } from '../pipeline/types.js';
import { evaluatePipeline, statusesFor, type EvaluationSettings } from '../reconcile/inputs.js';
import type { VerifiedTargets } from '../verify/verified-targets.js';
import { authorizationEvent } from './events.js';
import { recordAuthorization } from './record.js';

/** What an authorization needs. */
export interface AuthorizerDeps extends EvaluationSettings {
  catalog: PipelineCatalog;
  verified: VerifiedTargets;
  writer: PipelineWriter;
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

/** Records authorizations; see the module comment. */
export class Authorizer {
  constructor(private readonly deps: AuthorizerDeps) {}

  /**
   * Authorizes `claim` by `principal` for `environment` of the Pipeline. Throws a GatewayError:
   * NotFound (no such Pipeline or environment), NotWaiting (nothing waits for that revision),
   * Forbidden (the gate does not allow the principal), Replayed (credential already used).
   */
  async submit(
    ref: PipelineRef,
    environment: string,
    principal: Principal,
    claim: AuthorizationClaim,
  ): Promise<AuthorizationAnswer> {
    try {
      const answer = await this.authorize(pipelineId(ref), environment, principal, claim);
      this.deps.onOutcome?.(principal.kind, answer.recorded ? 'recorded' : 'recheck');
      return answer;
    } catch (error) {
      if (error instanceof GatewayError) this.deps.onOutcome?.(principal.kind, error.code);
      throw error;
    }
  }

  private async authorize(
    id: PipelineId,
    environment: string,
    principal: Principal,
    claim: AuthorizationClaim,
  ): Promise<AuthorizationAnswer> {
    const pipeline = this.deps.catalog.get(id);
    const env = pipeline?.spec.environments.find((e) => e.name === environment);
    if (pipeline === undefined || env === undefined) throw new GatewayError('NotFound');
    const base = { pipeline: id, environment, revision: claim.revision, principal: principal.name };
    const gate = gateOf(pipeline.spec, env, this.deps.floors[environment]);
    if (gate === undefined) {
      if (principal.kind !== 'ci') throw notWaiting(`${environment} has no approval gate`);
      // A CI job on an ungated environment only asks for a verified re-check, now.
      this.deps.recheck(id);
      return { ...base, recorded: false, decision: claim.decision, state: 'recheck' };
    }
    const record = recordOf(principal, claim, this.deps.now());
    if (!allows(gate, record)) throw new GatewayError('Forbidden');
    const stored = await this.verifiedNow(pipeline, id, environment);
    checkWaiting(this.decide(stored, id, environment), claim.revision, environment);
    const after = await this.write(stored, environment, record);
    const decision = this.decide(after, id, environment);
    const answer: AuthorizationAnswer = {
      ...base,
      recorded: true,
      decision: claim.decision,
      state: STATES[decision.outcome] ?? 'waiting',
      ...(decision.gate === undefined ? {} : { gate: decision.gate }),
    };
    await this.announce(after, record, answer);
    this.deps.recheck(id);
    return answer;
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
  ): Promise<Pipeline> {
    const names = pipeline.spec.environments.map((e) => e.name);
    const upTo = new Set(names.slice(0, names.indexOf(environment) + 1));
    await this.deps.verified.readAll(
      this.deps.catalog.targetsOf(id).filter((t) => upTo.has(t.environment)),
    );
    const fresh = await readPipeline(this.deps.writer, pipeline);
    if (fresh === undefined) throw new GatewayError('NotFound');
    return fresh;
  }

  private decide(pipeline: Pipeline, id: PipelineId, environment: string): EnvironmentDecision {
    const targets = statusesFor(this.deps.verified, pipeline, this.deps.catalog.targetsOf(id));
    const evaluation = evaluatePipeline(pipeline, targets, this.deps, this.deps.now());
    const decision = evaluation.decisions.find((d) => d.environment === environment);
    if (decision === undefined) throw new GatewayError('NotFound');
    return decision;
  }

  private async write(
    pipeline: Pipeline,
    environment: string,
    record: AuthorizationRecord,
  ): Promise<Pipeline> {
    const result = await recordAuthorization(
      this.deps.writer,
      pipeline,
      environment,
      record,
      this.deps.now(),
    );
    switch (result.outcome) {
      case 'Recorded':
        return result.pipeline;
      case 'Replayed':
        throw new GatewayError('Replayed');
      case 'Full':
        throw new GatewayError('RateLimited', undefined, { retryAfterSeconds: 60 });
      case 'Gone':
        throw new GatewayError('NotFound');
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
      await this.deps.writer.emitEvent(authorizationEvent(pipeline, record, answer));
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

/** Refuses unless `environment` is deciding on exactly `revision` behind its gate. */
function checkWaiting(decision: EnvironmentDecision, revision: string, environment: string): void {
  const deciding = decision.gate !== undefined && decision.revision === revision;
  if (deciding && STATES[decision.outcome] !== undefined) return;
  const waitingFor = decision.outcome === 'WaitingApproval' ? decision.revision : undefined;
  throw notWaiting(
    waitingFor === undefined
      ? `${environment} is not waiting for an approval (${decision.reason}: ${display(decision.message, 200)})`
      : `${environment} is waiting for ${display(waitingFor)}, not ${display(revision)}`,
  );
}

function notWaiting(detail: string): GatewayError {
  return new GatewayError('NotWaiting', detail);
}
