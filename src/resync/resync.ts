/**
 * The periodic full pass that makes lost events harmless: it re-reads every referenced target
 * with one LIST per (cluster, namespace, kind) shared by all pipelines, then re-checks every
 * pipeline through the same queue that hints feed. Every pass but the start-up one also says
 * when events are missing: changes it found first, no event having announced them
 * (unannounced.ts).
 */
import type { PipelineCatalog } from '../catalog/catalog.js';
import type { Scheduler } from '../clock.js';
import type { PipelineTrigger } from '../hints/sinks.js';
import { failureSummary } from '../kube/errors.js';
import { logFailure, type GatewayLogger } from '../log.js';
import type { PipelineId } from '../pipeline/id.js';
import type { ConfirmationReport } from '../reconcile/confirmation-round.js';
import type { FoundChange, VerifiedTargets } from '../verify/verified-targets.js';
import { changeDetection, warnUnannounced } from './unannounced.js';

/** About the shortest wait between two passes (it is jittered too), whatever the interval. */
const MIN_GAP_MS = 1000;

/** What one pass did, for logs, metrics and tests. */
export interface ResyncReport {
  scopes: number;
  targets: number;
  /** Targets found Unknown in this pass. */
  unknown: number;
  /** Objects whose change this pass found first, with no event (see unannounced.ts). */
  unannounced: number;
  pipelines: number;
  /** The promotions the pass found due, confirmed together before any check (if wired). */
  confirmation?: ConfirmationReport;
  durationMs: number;
}

/** What the resync needs. */
export interface ResyncDeps {
  catalog: PipelineCatalog;
  verified: VerifiedTargets;
  logger: GatewayLogger;
  scheduler: Scheduler;
  random: () => number;
  intervalMs: number;
  /** Fraction of the interval by which each period is randomly shortened or lengthened. */
  jitter: number;
  /** Re-reads credentials (GitopsCluster kubeconfig Secrets, legacy webhook keys) first. */
  refreshCredentials: () => Promise<void>;
  /** The queue every re-check goes through, hints' and the resync's alike. */
  pipelines: PipelineTrigger;
  onReport?: (report: ResyncReport) => void;
  /** The changes a pass found unannounced (never called for the start-up pass). */
  onUnannounced?: (changes: readonly FoundChange[]) => void;
  /**
   * Confirms the promotions the pass's reads make due, one read per scope for all of them,
   * before any Pipeline is re-checked (reconcile/confirmation-round.ts).
   */
  confirm?: (ids: readonly PipelineId[]) => Promise<ConfirmationReport>;
}

/**
 * Runs a full pass now and then every jittered interval until stopped; the periodic passes
 * can be switched off and on (leader election) without affecting runOnce().
 */
export class Resync {
  private cancel: (() => void) | undefined;
  private running: Promise<ResyncReport> | undefined;
  private stopped = false;
  private periodic = true;
  private passes = 0;
  private lastPassEnd: number | undefined;

  constructor(private readonly deps: ResyncDeps) {}

  /** Number of completed passes (readiness waits for the first). */
  get completedPasses(): number {
    return this.passes;
  }

  /** Starts with an immediate pass; later passes follow only while periodic (default on). */
  start(periodic = true): void {
    this.stopped = false;
    this.periodic = periodic;
    this.tick();
  }

  /**
   * Switches the periodic passes on or off. Switched on, the next pass comes one jittered
   * interval after this replica's last pass, but no sooner than about a second from now.
   */
  setPeriodic(on: boolean): void {
    if (on === this.periodic) return;
    this.periodic = on;
    this.cancel?.();
    this.cancel = undefined;
    if (on && !this.stopped) this.scheduleNext();
  }

  /** Stops the loop; resolves when a running pass ends. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.cancel?.();
    await this.running?.catch(() => undefined);
  }

  /** One full pass; concurrent calls share the pass in progress. */
  runOnce(): Promise<ResyncReport> {
    this.running ??= this.pass().finally(() => {
      this.running = undefined;
      this.lastPassEnd = this.deps.scheduler.now();
    });
    return this.running;
  }

  private tick(): void {
    if (this.stopped) return;
    this.runOnce()
      .catch((err: unknown) => {
        logFailure(
          this.deps.logger,
          'error',
          'resync pass failed',
          {},
          {
            summary: failureSummary(err),
            err,
          },
        );
      })
      .finally(() => {
        if (!this.stopped && this.periodic) this.scheduleNext();
      });
  }

  // A replica that takes over the periodic passes runs one soon unless its own last pass is
  // recent. No replica's last pass is later than the fleet's, so the fleet still goes at most
  // one interval (or the takeover and a second) without a pass, and the first leader does not
  // repeat the start-up pass every replica has just made.
  private scheduleNext(): void {
    this.cancel?.();
    const { scheduler } = this.deps;
    const since = this.lastPassEnd === undefined ? Infinity : scheduler.now() - this.lastPassEnd;
    const delay = Math.max(this.jittered(MIN_GAP_MS), this.jittered(this.deps.intervalMs) - since);
    this.cancel = scheduler.setTimer(delay, () => {
      this.cancel = undefined;
      this.tick();
    });
  }

  private jittered(ms: number): number {
    const { jitter, random } = this.deps;
    return ms * (1 + jitter * (2 * random() - 1));
  }

  /**
   * The pass's reads: every scope LISTed, unannounced changes reported, reads no Pipeline needs
   * any more forgotten. Why a function of its own: the changes found (with both statuses of
   * each) are let go before the confirmation round, whose promotion wave is when the gateway
   * holds the most.
   */
  private async readEverything(): Promise<
    Pick<ResyncReport, 'scopes' | 'unknown' | 'unannounced'>
  > {
    const { catalog, verified } = this.deps;
    // The start-up pass observes for the first time: there is nothing to compare it with.
    const detect = this.passes > 0 ? changeDetection(catalog) : undefined;
    const { scopes, unknown } = await verified.readScopes(catalog.allTargets(), detect);
    const found = detect?.found ?? [];
    if (found.length > 0) {
      warnUnannounced(this.deps.logger, found);
      this.deps.onUnannounced?.(found);
    }
    verified.retain((id) => catalog.referencesId(id));
    return { scopes, unknown, unannounced: found.length };
  }

  /** The confirmation round; a failed one leaves each check to confirm for itself. */
  private async confirm(ids: readonly PipelineId[]): Promise<ConfirmationReport | undefined> {
    try {
      return await this.deps.confirm?.(ids);
    } catch (err: unknown) {
      logFailure(
        this.deps.logger,
        'warn',
        'confirmation round failed',
        {},
        {
          summary: failureSummary(err),
          err,
        },
      );
      return undefined;
    }
  }

  private async pass(): Promise<ResyncReport> {
    const { catalog, scheduler } = this.deps;
    const started = scheduler.now();
    await this.deps.refreshCredentials();
    const read = await this.readEverything();
    const ids = catalog.ids();
    const confirmation = await this.confirm(ids);
    for (const id of ids) this.deps.pipelines.requestPipeline(id, 'resync');
    this.passes += 1;
    const report: ResyncReport = {
      ...read,
      targets: catalog.referencedObjects,
      pipelines: ids.length,
      ...(confirmation === undefined ? {} : { confirmation }),
      durationMs: scheduler.now() - started,
    };
    this.deps.onReport?.(report);
    this.deps.logger.info(report, 'resync pass complete');
    return report;
  }
}
