/**
 * Stop-the-line halts, from request to record: an authorized principal halts the promotions of
 * one environment of a Pipeline (or of all of them), with a reason and an optional expiry, and
 * lifts a halt the same way. Who may: a configured approver allowed by the approver lists of
 * every environment the halt covers (their `approval.approvers` and the operator's floor), or a
 * CI job whose policy covers the halted environment. Each halt and lift is a status change
 * through the one writer, an info log line, an Event on the Pipeline and a metric; the Pipeline
 * is re-checked after it. A halt holds Promote decisions only (src/evaluate/halts.ts).
 */
import { randomUUID } from 'node:crypto';
import type { Principal } from '../auth/identity.js';
import type { PipelineCatalog } from '../catalog/catalog.js';
import { allows, type GateFloor } from '../evaluate/gate.js';
import type { PipelineWriter } from '../kube/ports.js';
import type { StatusWriter } from '../kube/status-writer.js';
import type { GatewayLogger } from '../log.js';
import { pipelineId, type PipelineId, type PipelineRef } from '../pipeline/id.js';
import type { HaltRecord, Pipeline } from '../pipeline/pipeline-resource.js';
import { parseTimestamp, rfc3339 } from '../pipeline/time.js';
import { haltEvent } from './halt-events.js';
import { haltChange, liftChange } from './halt-record.js';

/** What halts need. */
export interface HalterDeps {
  catalog: Pick<PipelineCatalog, 'get'>;
  status: Pick<StatusWriter, 'apply' | 'read'>;
  events: Pick<PipelineWriter, 'emitEvent'>;
  logger: GatewayLogger;
  now: () => number;
  /** The configured approvers' names: only they may halt as people. */
  approvers: readonly string[];
  floors: Readonly<Record<string, GateFloor | undefined>>;
  recheck: (id: PipelineId) => void;
  /** Counts each answer by principal kind and outcome (metrics). */
  onOutcome?: (kind: Principal['kind'], outcome: string) => void;
}

/**
 * An authenticated caller: its principal and, for a CI job, whether a policy covers one
 * environment (undefined = the whole Pipeline, which no CI policy covers).
 */
export interface HaltCaller {
  principal: Principal;
  ciAllowed: (environment: string | undefined) => Promise<boolean>;
}

/** What a halt asks for (the validated body). */
export interface HaltRequest {
  environment?: string;
  reason: string;
  expiresAt?: string;
}

/** Why a halt or lift was not done; the ingress maps each to its documented HTTP code. */
export type HaltRefusal = 'NotFound' | 'Forbidden' | 'Expired' | 'Full' | 'Contended';

/** The halt recorded or lifted, or why not. */
export type HaltResult = { ok: true; halt: HaltRecord } | { ok: false; refusal: HaltRefusal };

/** Records and lifts halts; see the module comment. */
export class Halter {
  constructor(private readonly deps: HalterDeps) {}

  /** Halts the Pipeline (or one environment of it) for `caller`. */
  async halt(ref: PipelineRef, caller: HaltCaller, request: HaltRequest): Promise<HaltResult> {
    const result = await this.record(pipelineId(ref), caller, request);
    this.deps.onOutcome?.(caller.principal.kind, result.ok ? 'halted' : `halt-${result.refusal}`);
    return result;
  }

  /** Lifts the halt `haltId` of the Pipeline for `caller`. */
  async lift(ref: PipelineRef, caller: HaltCaller, haltId: string): Promise<HaltResult> {
    const result = await this.remove(pipelineId(ref), caller, haltId);
    this.deps.onOutcome?.(caller.principal.kind, result.ok ? 'lifted' : `lift-${result.refusal}`);
    return result;
  }

  private async record(
    id: PipelineId,
    caller: HaltCaller,
    request: HaltRequest,
  ): Promise<HaltResult> {
    const now = this.deps.now();
    const pipeline = this.deps.catalog.get(id);
    const { environment } = request;
    if (pipeline === undefined || !hasEnvironment(pipeline, environment)) return fail('NotFound');
    const expiresAt = parseTimestamp(request.expiresAt);
    if (request.expiresAt !== undefined && (expiresAt === undefined || expiresAt <= now))
      return fail('Expired');
    if (!(await this.may(pipeline, caller, environment))) return fail('Forbidden');
    const halt: HaltRecord = {
      id: randomUUID(),
      ...(environment === undefined ? {} : { environment }),
      principal: caller.principal.name,
      kind: caller.principal.kind,
      reason: request.reason,
      time: rfc3339(now),
      ...(expiresAt === undefined ? {} : { expiresAt: rfc3339(expiresAt) }),
    };
    const change = haltChange(halt, now, (stored) => hasEnvironment(stored, environment));
    const result = await this.deps.status.apply(pipeline, change);
    if (result.outcome === 'Gone') return fail('NotFound');
    if (result.outcome === 'Contended') return fail('Contended');
    if (result.outcome === 'Kept' || result.verdict !== 'Recorded')
      return fail(
        result.verdict === 'Full' ? 'Full' : result.verdict === 'Stale' ? 'NotFound' : 'Contended',
      );
    await this.announce(result.pipeline, id, halt, 'recorded', caller.principal.name);
    return { ok: true, halt };
  }

  private async remove(id: PipelineId, caller: HaltCaller, haltId: string): Promise<HaltResult> {
    const now = this.deps.now();
    const pipeline = this.deps.catalog.get(id);
    if (pipeline === undefined) return fail('NotFound');
    const stored = await this.deps.status.read(pipeline.metadata);
    const found = stored?.status?.halts?.find((h) => h.id === haltId);
    if (stored === undefined || found === undefined) return fail('NotFound');
    if (!(await this.may(stored, caller, found.environment))) return fail('Forbidden');
    // Judged on the halt as read; a conflict re-applies it only to a halt of the same scope.
    const change = liftChange(haltId, now, (h) => h.environment === found.environment);
    const result = await this.deps.status.apply(stored, change);
    if (result.outcome === 'Gone') return fail('NotFound');
    if (result.outcome === 'Contended') return fail('Contended');
    const verdict = result.verdict;
    if (result.outcome === 'Kept' || verdict.outcome !== 'Lifted')
      return fail(verdict.outcome === 'Forbidden' ? 'Forbidden' : 'NotFound');
    await this.announce(result.pipeline, id, verdict.lifted, 'lifted', caller.principal.name);
    return { ok: true, halt: verdict.lifted };
  }

  /** Whether `caller` may halt (or lift a halt of) `environment`, or the whole Pipeline. */
  private async may(
    pipeline: Pipeline,
    caller: HaltCaller,
    environment: string | undefined,
  ): Promise<boolean> {
    const { principal } = caller;
    if (principal.kind === 'ci') return caller.ciAllowed(environment);
    if (principal.kind !== 'human' || !this.deps.approvers.includes(principal.name)) return false;
    const covered = pipeline.spec.environments.filter(
      (e) => environment === undefined || e.name === environment,
    );
    const record = {
      principal: principal.name,
      kind: principal.kind,
      groups: [...principal.groups],
      decision: 'approve' as const,
      revision: '',
      time: '',
    };
    return covered.every((env) => {
      const lists = [
        env.promotion?.approval?.approvers ?? [],
        this.deps.floors[env.name]?.approvers ?? [],
      ];
      const approverLists = lists.filter((l) => l.length > 0);
      return allows({ minApprovals: 1, minHumanApprovals: 0, approverLists }, record);
    });
  }

  /** One info log line, one Event on the Pipeline, and a re-check, per halt or lift. */
  private async announce(
    pipeline: Pipeline,
    id: PipelineId,
    halt: HaltRecord,
    action: 'recorded' | 'lifted',
    by: string,
  ): Promise<void> {
    const fields = { pipeline: id, haltId: halt.id, environment: halt.environment, by };
    this.deps.logger.info({ ...fields, expiresAt: halt.expiresAt }, `halt ${action}`);
    try {
      await this.deps.events.emitEvent(haltEvent(pipeline, halt, action, by));
    } catch {
      // The status is the record; a lost Event costs the audit trail nothing.
      this.deps.logger.warn({ pipeline: id }, 'halt event not recorded');
    }
    this.deps.recheck(id);
  }
}

function hasEnvironment(pipeline: Pipeline, environment: string | undefined): boolean {
  return (
    environment === undefined || pipeline.spec.environments.some((e) => e.name === environment)
  );
}

function fail(refusal: HaltRefusal): HaltResult {
  return { ok: false, refusal };
}
