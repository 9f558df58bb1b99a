/**
 * Stop-the-line halts of one Pipeline, from request to record: an authorized principal halts
 * the promotions of one environment of a Pipeline (or of all of them), with a reason and an
 * optional expiry, and lifts a halt the same way. Who may: halt-access.ts. Each halt and lift is
 * a status change through the one writer, an info log line, an Event on the Pipeline and a
 * metric; the Pipeline is re-checked after it (halt-writes.ts). A halt holds Promote decisions
 * only (src/evaluate/halts-gate.ts). Halts across Pipelines: fleet-halter.ts.
 */
import type { Principal } from '../auth/identity.js';
import type { PipelineCatalog } from '../catalog/catalog.js';
import { pipelineId, type PipelineId, type PipelineRef } from '../pipeline/id.js';
import type { HaltRecord } from '../pipeline/pipeline-resource.js';
import { parseTimestamp } from '../time/kube-time.js';
import { hasEnvironment, mayHalt, type HaltCaller, type HaltPolicy } from './halt-access.js';
import {
  haltInForce,
  haltRecordOf,
  writeHalt,
  writeLift,
  type HaltRequest,
  type HaltWriteDeps,
} from './halt-writes.js';

export type { HaltCaller } from './halt-access.js';
export type { HaltRequest } from './halt-writes.js';

/** What halts need. */
export interface HalterDeps extends HaltWriteDeps, HaltPolicy {
  catalog: Pick<PipelineCatalog, 'get'>;
  now: () => number;
  /** Counts each answer by principal kind and outcome (metrics). */
  onOutcome?: (kind: Principal['kind'], outcome: string) => void;
}

/** Why a halt or lift was not done; the ingress maps each to its documented HTTP code. */
export type HaltRefusal = 'NotFound' | 'Forbidden' | 'Expired' | 'Full' | 'Contended' | 'Replayed';

/**
 * The halt recorded or lifted (`repeated`: the same halt was in force already, nothing was
 * written), or why not.
 */
export type HaltResult =
  { ok: true; halt: HaltRecord; repeated?: boolean } | { ok: false; refusal: HaltRefusal };

/**
 * The expiry of a halt asked for at `now` (ms): undefined for none, 'Expired' when it is not
 * an RFC 3339 time in the future.
 */
export function expiryOf(
  expiresAt: string | undefined,
  now: number,
): number | 'Expired' | undefined {
  if (expiresAt === undefined) return undefined;
  const ms = parseTimestamp(expiresAt);
  return ms === undefined || ms <= now ? 'Expired' : ms;
}

/** Records and lifts halts of one Pipeline; see the module comment. */
export class Halter {
  constructor(private readonly deps: HalterDeps) {}

  /** Halts the Pipeline (or one environment of it) for `caller`. */
  async halt(ref: PipelineRef, caller: HaltCaller, request: HaltRequest): Promise<HaltResult> {
    const result = await this.record(pipelineId(ref), caller, request);
    const outcome = result.ok
      ? result.repeated === true
        ? 'halt-Duplicate'
        : 'halted'
      : `halt-${result.refusal}`;
    this.deps.onOutcome?.(caller.principal.kind, outcome);
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
    const expiresAt = expiryOf(request.expiresAt, now);
    if (expiresAt === 'Expired') return fail('Expired');
    if (!(await mayHalt(this.deps, pipeline, caller, environment))) return fail('Forbidden');
    const halt = haltRecordOf(caller, request, `pipeline:${id}`, { now, expiresAt });
    const written = await writeHalt(this.deps, pipeline, halt, now);
    switch (written.outcome) {
      case 'Recorded':
        return { ok: true, halt: written.halt };
      case 'Duplicate':
        return { ok: true, halt: written.halt, repeated: true };
      case 'Gone':
      case 'Stale':
        return fail('NotFound');
      default:
        return fail(written.outcome);
    }
  }

  private async remove(id: PipelineId, caller: HaltCaller, haltId: string): Promise<HaltResult> {
    const now = this.deps.now();
    const pipeline = this.deps.catalog.get(id);
    if (pipeline === undefined) return fail('NotFound');
    const stored = await this.deps.status.read(pipeline.metadata);
    const found = stored === undefined ? undefined : haltInForce(stored, haltId, now);
    if (stored === undefined || found === undefined) return fail('NotFound');
    if (!(await mayHalt(this.deps, stored, caller, found.environment))) return fail('Forbidden');
    // Judged on the halt as read; a conflict re-applies it only to a halt of the same scope.
    const lift = { id: haltId, by: caller.principal.name, now };
    const written = await writeLift(
      this.deps,
      stored,
      lift,
      (h) => h.environment === found.environment,
    );
    switch (written.outcome) {
      case 'Lifted':
        return { ok: true, halt: written.halt };
      case 'Forbidden':
      case 'Contended':
        return fail(written.outcome);
      default:
        return fail('NotFound');
    }
  }
}

function fail(refusal: HaltRefusal): HaltResult {
  return { ok: false, refusal };
}
