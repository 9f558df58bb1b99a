/**
 * Halts across Pipelines: one halt (one id, its `selector` recorded) on every loaded Pipeline
 * that a label selector matches (in one namespace, or all), and its lift from every Pipeline
 * holding it. Authorization is all-or-nothing: the caller must be allowed to halt (or lift) on
 * every Pipeline concerned, else nothing is written. Writes are per Pipeline, through the one
 * status writer, at most WRITES_IN_FLIGHT at once; each Pipeline's outcome is reported, and
 * the same call again is safe (the same credential names the same halt: Duplicate is success).
 * Pipelines created or labelled after the halt are not held by it (docs/policy.md).
 */
import type { Principal } from '../auth/identity.js';
import type { PipelineCatalog } from '../catalog/catalog.js';
import { pipelineIdOf } from '../pipeline/id.js';
import type { HaltRecord, Pipeline } from '../pipeline/pipeline-resource.js';
import { isUnavailable } from '../kube/errors.js';
import { Limiter } from '../queue/limiter.js';
import { hasEnvironment, mayHalt, type HaltCaller, type HaltPolicy } from './halt-access.js';
import { inForce, replayedIn } from './halt-record.js';
import {
  haltInForce,
  haltRecordOf,
  writeHalt,
  writeLift,
  type HaltRequest,
  type HaltWriteDeps,
} from './halt-writes.js';
import { expiryOf } from './halter.js';
import { selectorMatches, selectorText, type LabelSelector } from '../labels/label-selector.js';

/** The most Pipelines one call may halt or lift. */
export const MAX_PIPELINES_PER_CALL = 1000;
const WRITES_IN_FLIGHT = 8;

/** What halts across Pipelines need. */
export interface FleetHalterDeps extends HaltWriteDeps, HaltPolicy {
  catalog: Pick<PipelineCatalog, 'heads'>;
  now: () => number;
  /** Counts each call by principal kind and outcome (metrics). */
  onOutcome?: (kind: Principal['kind'], outcome: string) => void;
  /** MAX_PIPELINES_PER_CALL unless given (tests). */
  maxPipelines?: number;
}

/** A halt across Pipelines: the selector, and optionally one namespace. */
export interface FleetHaltRequest extends HaltRequest {
  namespace?: string;
  selector: LabelSelector;
}

/**
 * One Pipeline's outcome: halted (recorded now), held (it held this halt already), lifted,
 * absent (no longer held it), replayed, full, contended (worth a retry), gone (deleted),
 * unavailable (the management API could not take the write; worth a retry).
 */
export interface PipelineOutcome {
  pipeline: string;
  outcome:
    | 'halted'
    | 'held'
    | 'lifted'
    | 'absent'
    | 'replayed'
    | 'full'
    | 'contended'
    | 'gone'
    | 'unavailable';
}

/** Why nothing was done. TooMany: more Pipelines than one call may change (`detail` says). */
export type FleetRefusal = 'NotFound' | 'Forbidden' | 'Expired' | 'Replayed' | 'TooMany';

/** The halt and each Pipeline's outcome (`complete` when every one holds it, or is lifted). */
export type FleetResult =
  | { ok: true; halt: HaltRecord; pipelines: PipelineOutcome[]; skipped: number; complete: boolean }
  | { ok: false; refusal: FleetRefusal; detail?: string };

const HALTED: Readonly<Record<string, PipelineOutcome['outcome']>> = {
  Recorded: 'halted',
  Duplicate: 'held',
  Replayed: 'replayed',
  Full: 'full',
  Contended: 'contended',
  Gone: 'gone',
  Stale: 'gone',
  Lifted: 'lifted',
  Absent: 'absent',
  Forbidden: 'contended',
  Unavailable: 'unavailable',
};

/** Records and lifts halts across Pipelines; see the module comment. */
export class FleetHalter {
  private readonly limiter = new Limiter(WRITES_IN_FLIGHT);

  constructor(private readonly deps: FleetHalterDeps) {}

  /** Halts every Pipeline `request.selector` matches (that has its environment) for `caller`. */
  async halt(caller: HaltCaller, request: FleetHaltRequest): Promise<FleetResult> {
    const result = await this.haltMatching(caller, request);
    this.count(caller, 'halt', result);
    return result;
  }

  /** Lifts the halt `id` from every Pipeline holding it (or only `only`, when named). */
  async lift(caller: HaltCaller, id: string, only?: string): Promise<FleetResult> {
    const result = await this.liftEverywhere(caller, id, only);
    this.count(caller, 'lift', result);
    return result;
  }

  private count(caller: HaltCaller, action: 'halt' | 'lift', result: FleetResult): void {
    const outcome = !result.ok
      ? `${action}-${result.refusal}`
      : result.complete
        ? { halt: 'halted', lift: 'lifted' }[action]
        : `${action}-Partial`;
    this.deps.onOutcome?.(caller.principal.kind, outcome);
    if (result.ok && result.halt.selector !== undefined) this.summarize(caller, action, result);
  }

  /** The one info line of a halt across Pipelines: each Pipeline's own line is debug. */
  private summarize(
    caller: HaltCaller,
    action: 'halt' | 'lift',
    result: Extract<FleetResult, { ok: true }>,
  ): void {
    const { halt, pipelines, skipped, complete } = result;
    const outcomes: Record<string, number> = {};
    for (const p of pipelines) outcomes[p.outcome] = (outcomes[p.outcome] ?? 0) + 1;
    const fields = { haltId: halt.id, environment: halt.environment, selector: halt.selector };
    const by = caller.principal.name;
    const counts = { pipelines: pipelines.length, outcomes, skipped, complete };
    const message =
      action === 'halt' ? 'halt recorded across Pipelines' : 'halt lifted across Pipelines';
    this.deps.logger.info({ ...fields, by, ...counts }, message);
  }

  private async haltMatching(caller: HaltCaller, request: FleetHaltRequest): Promise<FleetResult> {
    const now = this.deps.now();
    const expiresAt = expiryOf(request.expiresAt, now);
    if (expiresAt === 'Expired') return { ok: false, refusal: 'Expired' };
    const { namespace, environment, selector } = request;
    const { catalog } = this.deps;
    const matched = catalog
      .heads()
      .filter((p) => namespace === undefined || p.metadata.namespace === namespace)
      .filter((p) => selectorMatches(selector, p.metadata.labels));
    const targets = matched.filter((p) => hasEnvironment(p, environment));
    const skipped = matched.length - targets.length;
    const refusal = await this.judge(targets, caller, () => environment);
    if (refusal !== undefined) return refusal;
    const text = selectorText(selector);
    const scope = `selector:${namespace ?? '*'}:${text}`;
    const halt = haltRecordOf(caller, { ...request, selector: text }, scope, { now, expiresAt });
    // A replayed credential halts nothing, not even a Pipeline that has matched only since.
    if (targets.some((p) => replayedIn(p, halt, now))) return { ok: false, refusal: 'Replayed' };
    const pipelines = await this.each(targets, async (p) => {
      const written = await writeHalt(this.deps, p, halt, now);
      return written.outcome;
    });
    return { ok: true, halt, pipelines, skipped, complete: isComplete(pipelines) };
  }

  private async liftEverywhere(
    caller: HaltCaller,
    id: string,
    only?: string,
  ): Promise<FleetResult> {
    const now = this.deps.now();
    const { catalog } = this.deps;
    const holders = catalog.heads().filter((p) => {
      const pid = pipelineIdOf(p);
      return (only === undefined || pid === only) && inForceIn(p.status?.halts, id, now);
    });
    const held = (p: Pipeline) => haltInForce(p, id, now);
    const refusal = await this.judge(holders, caller, (p) => held(p)?.environment);
    if (refusal !== undefined) return refusal;
    const first = holders[0] === undefined ? undefined : held(holders[0]);
    if (first === undefined) return { ok: false, refusal: 'NotFound' };
    const by = caller.principal.name;
    const pipelines = await this.each(holders, async (p) => {
      const environment = held(p)?.environment;
      const lift = { id, by, now };
      const written = await writeLift(this.deps, p, lift, (h) => h.environment === environment);
      return written.outcome;
    });
    return { ok: true, halt: first, pipelines, skipped: 0, complete: isComplete(pipelines) };
  }

  /**
   * Forbidden for a person who is no configured approver, NotFound when there is no Pipeline,
   * TooMany past the bound, Forbidden unless `caller` may act on every one (for the environment
   * `environmentOf` names, the count only in the detail); undefined when all may go on.
   */
  private async judge(
    pipelines: readonly Pipeline[],
    caller: HaltCaller,
    environmentOf: (p: Pipeline) => string | undefined,
  ): Promise<FleetResult | undefined> {
    const max = this.deps.maxPipelines ?? MAX_PIPELINES_PER_CALL;
    const { principal } = caller;
    if (principal.kind !== 'ci' && !this.deps.approvers.includes(principal.name))
      return { ok: false, refusal: 'Forbidden' };
    if (pipelines.length === 0) return { ok: false, refusal: 'NotFound' };
    if (pipelines.length > max) {
      const detail = `${String(pipelines.length)} Pipelines match; one call may halt or lift at most ${String(max)}: narrow the selector or name a namespace.`;
      return { ok: false, refusal: 'TooMany', detail };
    }
    let refused = 0;
    for (const p of pipelines)
      if (!(await mayHalt(this.deps, p, caller, environmentOf(p)))) refused++;
    if (refused === 0) return undefined;
    const detail = `The principal may not act on ${String(refused)} of the ${String(pipelines.length)} Pipelines concerned; nothing was done.`;
    return { ok: false, refusal: 'Forbidden', detail };
  }

  /**
   * `write` on each Pipeline, WRITES_IN_FLIGHT at once, as PipelineOutcomes in order. A write
   * the management API could not serve is `unavailable` (a retry of the call completes it);
   * when every write failed so, nothing was done and the call rejects with the first failure.
   */
  private async each(
    pipelines: readonly Pipeline[],
    write: (p: Pipeline) => Promise<string>,
  ): Promise<PipelineOutcome[]> {
    const failures: unknown[] = [];
    const attempt = async (p: Pipeline): Promise<string> => {
      try {
        return await write(p);
      } catch (err) {
        // Anything else is a bug, and fails the call as one.
        if (!isUnavailable(err)) throw err;
        failures.push(err);
        return 'Unavailable';
      }
    };
    const outcomes = await Promise.all(
      pipelines.map((p) =>
        this.limiter.run(async () => ({
          pipeline: nameOf(p),
          outcome: HALTED[await attempt(p)] ?? 'contended',
        })),
      ),
    );
    if (failures.length === outcomes.length) throw failures[0];
    return outcomes;
  }
}

function inForceIn(halts: readonly HaltRecord[] | undefined, id: string, now: number): boolean {
  return halts?.some((h) => h.id === id && inForce(h, now)) === true;
}

function nameOf(pipeline: Pipeline): string {
  return pipelineIdOf(pipeline);
}

function isComplete(pipelines: readonly PipelineOutcome[]): boolean {
  return pipelines.every((p) => ['halted', 'held', 'lifted', 'absent'].includes(p.outcome));
}
