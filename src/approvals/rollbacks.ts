/**
 * Rollback requests and hold lifts, from request to record (docs/api.md, "Rollbacks"). A request
 * is judged on the environment re-read now: it must run one revision, the revision asked for (or
 * the previous one, by default) must be one it ran healthy (its stored `verified` list), and the
 * environment's rollback policy must allow the principal. The request is then recorded as an
 * authorization of decision `rollback` (replays refused); the evaluator rolls back once the
 * quorum has asked, and the claim that does it holds the revision rolled back. A lift marks the
 * holds on one revision lifted, so the evaluator may promote it there again.
 */
import type { Principal, RollbackClaim } from '../auth/identity.js';
import { rollbackGateOf, mayRollBack, holdsOn } from '../evaluate/revision-holds.js';
import { allows } from '../evaluate/gate.js';
import { ClusterUnavailable, UNREACHABLE_READS } from '../kube/errors.js';
import { StatusWritesHeld } from '../kube/status-writer.js';
import { pipelineId, type PipelineId, type PipelineRef } from '../pipeline/id.js';
import { jsonEqual } from '../json/json-equal.js';
import type {
  AuthorizationRecord,
  Pipeline,
  PipelineEnvironment,
} from '../pipeline/pipeline-resource.js';
import { display } from '../text/text.js';
import { statusesFor } from '../evaluation/evaluation-input.js';
import type { TargetStatus } from '../evaluate/decisions.js';
import { recordOf } from './answers.js';
import { authorizationChange } from './approval-record.js';
import type { AuthorizerDeps } from './authorizer.js';
import { liftChange, rollbackEvent } from './hold-lifts.js';

/** Why a rollback request or a lift was not recorded (each a registered error code). */
export interface RollbackRefusal {
  reason:
    | 'NotFound'
    | 'Forbidden'
    | 'Replayed'
    | 'Full'
    | 'Contended'
    | 'NotSettled'
    | 'RevisionNotRun'
    | 'NoRollbackTarget'
    | 'NotHeld';
  detail?: string;
}

/** The 202 answer of a recorded rollback request. */
export interface RollbackAnswer {
  recorded: true;
  pipeline: string;
  environment: string;
  /** The revision rolled back to. */
  revision: string;
  /** The revision rolled back (what the environment runs). */
  from: string;
  principal: string;
  /** rolling-back: the quorum is met and the rollback follows; waiting: more must ask. */
  state: 'rolling-back' | 'waiting';
  /** e.g. "1 of 2 rollback requests". */
  quorum: string;
}

/** The 200 answer of a lift. */
export interface LiftAnswer {
  pipeline: string;
  environment: string;
  revision: string;
  lifted: number;
  liftedBy: string;
}

/** An answer, or the refusal the ingress maps to its error code. */
export type RollbackResult<A> = { ok: true; answer: A } | { ok: false; refusal: RollbackRefusal };

function refuse(reason: RollbackRefusal['reason'], detail?: string) {
  return { ok: false as const, refusal: detail === undefined ? { reason } : { reason, detail } };
}

/** Records rollback requests and lifts holds; see the module comment. */
export class Rollbacks {
  /** `approvers`: the configured approvers' names, who may when a policy names nobody. */
  constructor(private readonly deps: AuthorizerDeps & { approvers: readonly string[] }) {}

  /** Whether `principal` may roll back `env` (and lift its holds). */
  private allowed(env: PipelineEnvironment, principal: Principal): boolean {
    const probe = recordOf(principal, { revision: '', decision: 'rollback' }, this.deps.now());
    if (!mayRollBack(env, probe)) return false;
    const named = (env.promotion?.rollback?.approvers ?? []).length > 0;
    return named || this.deps.approvers.includes(principal.name);
  }

  /** Asks to roll `environment` back as `principal`; rejects only as Authorizer.submit does. */
  async request(
    ref: PipelineRef,
    environment: string,
    principal: Principal,
    claim: RollbackClaim,
  ): Promise<RollbackResult<RollbackAnswer>> {
    const id = pipelineId(ref);
    const found = this.environmentOf(id, environment);
    if (!found.ok) return found;
    const { pipeline, env } = found;
    if (!this.allowed(env, principal)) return refuse('Forbidden');
    const targets = this.deps.catalog.targetsOf(id).filter((t) => t.environment === environment);
    await this.deps.verified.readAll(targets);
    const stored = await this.deps.status.read(pipeline.metadata);
    if (stored === undefined) return refuse('NotFound');
    const own = statusesFor(this.deps.verified, stored, targets)[environment] ?? [];
    const running = this.runningNow(own, targets);
    if (running === undefined)
      return refuse('NotSettled', `${environment} does not run one readable revision now`);
    const chosen = rollbackTarget(stored, environment, running, claim.revision);
    if (!chosen.ok) return chosen;
    const record: AuthorizationRecord = {
      ...recordOf(
        principal,
        {
          revision: chosen.revision,
          decision: 'rollback',
          comment: claim.reason,
          ...(claim.statement === undefined ? {} : { statement: claim.statement }),
        },
        this.deps.now(),
      ),
      from: running,
    };
    const written = await this.write(stored, environment, record);
    if (!written.ok) return written;
    const answer = this.answerOf(written.pipeline, id, env, record);
    await this.announce(written.pipeline, record, answer);
    this.deps.recheck(id);
    return { ok: true, answer };
  }

  /** Lifts the holds on `revision` in `environment` as `principal`, allowed like a rollback. */
  async lift(
    ref: PipelineRef,
    environment: string,
    revision: string,
    principal: Principal,
  ): Promise<RollbackResult<LiftAnswer>> {
    const id = pipelineId(ref);
    const found = this.environmentOf(id, environment);
    if (!found.ok) return found;
    if (!this.allowed(found.env, principal)) return refuse('Forbidden');
    const change = liftChange(environment, revision, principal.name, this.deps.now());
    const result = await this.deps.status.apply(found.pipeline, change, 'stored');
    if (result.outcome === 'Gone') return refuse('NotFound');
    if (result.outcome === 'Contended') return refuse('Contended');
    if (result.outcome === 'Kept')
      return refuse('NotHeld', `${environment} holds no ${display(revision)}`);
    this.deps.logger.info(
      { pipeline: id, environment, revision, principal: principal.name },
      'hold lifted',
    );
    this.deps.recheck(id);
    const answer = {
      pipeline: id,
      environment,
      revision,
      lifted: result.verdict,
      liftedBy: principal.name,
    };
    return { ok: true, answer };
  }

  private environmentOf(id: PipelineId, environment: string) {
    const pipeline = this.deps.catalog.get(id);
    const index = pipeline?.spec.environments.findIndex((e) => e.name === environment) ?? -1;
    const env = pipeline?.spec.environments[index];
    if (pipeline === undefined || env === undefined) return refuse('NotFound');
    if (index === 0)
      return refuse(
        'NoRollbackTarget',
        `${environment} is the source environment; it is never promoted, so never rolled back`,
      );
    return { ok: true as const, pipeline, env };
  }

  /** The one revision every target runs, every one read; a cluster not reached throws. */
  private runningNow(
    own: readonly TargetStatus[],
    targets: Parameters<AuthorizerDeps['verified']['readAll']>[0],
  ): string | undefined {
    for (const target of targets) {
      const status = this.deps.verified.status(target);
      if (status?.health === 'Unknown' && UNREACHABLE_READS.has(status.reason))
        throw new ClusterUnavailable(target.location.cluster, status.reason);
    }
    const first = own[0]?.revision;
    const settled =
      own.length > 0 && own.every((t) => t.health !== 'Unknown' && t.revision === first);
    return settled ? first : undefined;
  }

  private async write(stored: Pipeline, environment: string, record: AuthorizationRecord) {
    const same = (now: Pipeline) => now.metadata.generation === stored.metadata.generation;
    const change = authorizationChange(environment, record, this.deps.now(), same);
    const result = await this.deps.status.apply(stored, change, 'stored');
    switch (result.outcome) {
      case 'Written': {
        const kept = result.pipeline.status?.environments?.[environment]?.approvals ?? [];
        if (!kept.some((r) => jsonEqual(r, record))) {
          this.deps.onUnkept?.();
          throw new StatusWritesHeld([`status.environments.${environment}.approvals`]);
        }
        return { ok: true as const, pipeline: result.pipeline };
      }
      case 'Gone':
        return refuse('NotFound');
      case 'Contended':
        return refuse('Contended');
      case 'Kept':
        if (result.verdict === 'Replayed' || result.verdict === 'Full')
          return refuse(result.verdict);
        return refuse('Contended');
    }
  }

  private answerOf(
    pipeline: Pipeline,
    id: PipelineId,
    env: PipelineEnvironment,
    record: AuthorizationRecord,
  ): RollbackAnswer {
    const targets = statusesFor(this.deps.verified, pipeline, this.deps.catalog.targetsOf(id));
    const evaluation = this.deps.evaluator.evaluate(pipeline, targets);
    const decision = evaluation.decisions.find((d) => d.environment === env.name);
    const gate = rollbackGateOf(env);
    const asking = new Set(
      (pipeline.status?.environments?.[env.name]?.approvals ?? [])
        .filter(
          (r) =>
            r.decision === 'rollback' &&
            r.revision === record.revision &&
            r.from === record.from &&
            allows(gate, r),
        )
        .map((r) => r.principal),
    );
    const noun = gate.minApprovals === 1 ? 'rollback request' : 'rollback requests';
    return {
      recorded: true,
      pipeline: id,
      environment: env.name,
      revision: record.revision,
      from: record.from ?? '',
      principal: record.principal,
      state: decision?.outcome === 'RollBack' ? 'rolling-back' : 'waiting',
      quorum: `${Math.min(asking.size, gate.minApprovals)} of ${gate.minApprovals} ${noun}`,
    };
  }

  /** One Event and one log line per recorded request; the record is what counts. */
  private async announce(pipeline: Pipeline, record: AuthorizationRecord, answer: RollbackAnswer) {
    this.deps.logger.warn({ ...answer, reason: record.comment }, 'rollback requested');
    try {
      await this.deps.events.emitEvent(rollbackEvent(pipeline, record, answer));
    } catch {
      this.deps.logger.warn({ pipeline: answer.pipeline }, 'rollback event not recorded');
    }
  }
}

/**
 * The revision to roll back to: `asked` when the environment ran it healthy and does not run it
 * now, else the newest one it ran healthy that it does not run and that is not held.
 */
export function rollbackTarget(
  pipeline: Pipeline,
  environment: string,
  running: string,
  asked: string | undefined,
): { ok: true; revision: string } | { ok: false; refusal: RollbackRefusal } {
  const stored = pipeline.status?.environments?.[environment];
  const ran = (stored?.verified ?? []).map((v) => v.revision);
  if (asked !== undefined) {
    if (asked === running)
      return refuse('RevisionNotRun', `${environment} runs ${display(asked)} now`);
    if (!ran.includes(asked))
      return refuse('RevisionNotRun', `${environment} has not run ${display(asked)} healthy`);
    return { ok: true, revision: asked };
  }
  const previous = [...ran]
    .reverse()
    .find((r) => r !== running && holdsOn(stored?.holds, r).length === 0);
  if (previous === undefined)
    return refuse('NoRollbackTarget', `${environment} ran no other revision healthy`);
  return { ok: true, revision: previous };
}
