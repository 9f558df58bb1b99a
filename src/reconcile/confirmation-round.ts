/**
 * Promotions found due by a pass, confirmed together: state read, decisions computed, one
 * confirmation, then action. After a pass has read every scope, each Pipeline is evaluated on
 * what it read; the targets its due promotions depend on that were not read within freshnessMs
 * are read again, grouped by the scope the pass listed them in (one re-LIST per (cluster, scope)
 * covers every promotion due there), and each due Pipeline is marked so that its next check
 * counts every read made since then as current. Why: a confirmation shared only by the
 * promotions waiting at one moment costs more reads the slower the machine or the API servers
 * are; one round per pass costs one read per scope at any pace.
 */
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { PipelineCatalog } from '../catalog/catalog.js';
import type { CatalogTarget } from '../catalog/targets.js';
import { promotions } from '../evaluate/evaluate.js';
import type { PipelineId } from '../pipeline/id.js';
import type { VerifiedTargets } from '../verify/verified-targets.js';
import { statusesFor } from '../evaluation/evaluation-input.js';
import type { PipelineEvaluator } from '../evaluation/pipeline-evaluator.js';
import { dependedOnEnvironments, type ConfirmationMarks } from './promotions.js';

/**
 * Pipelines evaluated between two yields to the event loop: a large round never stalls it.
 * Why 32: what one turn's evaluations allocate lives until the turn ends, and a smaller turn
 * keeps it out of V8's old space in the same wave time
 * (docs/adr/0004-a-pass-confirms-its-due-promotions-in-one-round.md).
 */
const EVALUATIONS_PER_TURN = 32;

/** What a round needs: the Pipelines, their reads, and what the evaluator takes. */
export interface ConfirmationDeps {
  /** The one evaluation the reconciler decides with, so a round finds what a check would. */
  evaluator: Pick<PipelineEvaluator, 'evaluate'>;
  catalog: Pick<PipelineCatalog, 'get' | 'targetsOf'>;
  verified: VerifiedTargets;
  now: () => number;
  /** A read younger than this when the round starts is not read again. */
  freshnessMs: number;
  /** A mark older than this counts for nothing (the resync interval: the next round's due). */
  lifetimeMs: number;
}

/** What one round did, for the pass's report. */
export interface ConfirmationReport {
  /** Pipelines with a promotion due. */
  due: number;
  /** Distinct targets read again for them (by re-LIST of their scope, or by GET). */
  reread: number;
  durationMs: number;
}

/** The rounds, and the marks they leave for each due Pipeline's next check. */
export class ConfirmationRounds implements ConfirmationMarks {
  private marks = new Map<PipelineId, number>();

  constructor(private readonly deps: ConfirmationDeps) {}

  /**
   * Evaluates `ids`, reads again what their due promotions depend on (one read per scope), then
   * marks them; resolves once every read is stored, before any of them is checked again.
   */
  async confirm(ids: readonly PipelineId[]): Promise<ConfirmationReport> {
    const { now, freshnessMs, verified } = this.deps;
    const started = now();
    const since = started - freshnessMs;
    const due: PipelineId[] = [];
    const stale = new Map<string, CatalogTarget>();
    for (const [i, id] of ids.entries()) {
      if (i > 0 && i % EVALUATIONS_PER_TURN === 0) await nextTurn();
      const needed = this.dueTargets(id);
      if (needed === undefined) continue;
      due.push(id);
      for (const t of needed) {
        if ((verified.readAt(t) ?? -Infinity) < since) stale.set(t.id, t);
      }
    }
    await verified.reread([...stale.values()]);
    // Marks of an older round are dropped: this one supersedes them.
    this.marks = new Map(due.map((id) => [id, since]));
    return { due: due.length, reread: stale.size, durationMs: now() - started };
  }

  /**
   * The oldest read time that counts as current for the Pipeline's promotions, if a round
   * confirmed them; taken once (every check takes it, so no mark outlives its check).
   */
  take(id: PipelineId): number | undefined {
    const since = this.marks.get(id);
    if (since === undefined) return undefined;
    this.marks.delete(id);
    return this.deps.now() - since > this.deps.lifetimeMs ? undefined : since;
  }

  /** The targets a Pipeline's due promotions depend on, or undefined when none is due. */
  private dueTargets(id: PipelineId): readonly CatalogTarget[] | undefined {
    const { catalog, verified } = this.deps;
    const pipeline = catalog.get(id);
    if (pipeline === undefined) return undefined;
    const targets = catalog.targetsOf(id);
    const statuses = statusesFor(verified, pipeline, targets);
    const wanted = promotions(this.deps.evaluator.evaluate(pipeline, statuses));
    if (wanted.length === 0) return undefined;
    const environments = dependedOnEnvironments(pipeline, wanted);
    return targets.filter((t) => environments.has(t.environment));
  }
}
