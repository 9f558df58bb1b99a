/**
 * The periodic full pass that makes lost events harmless: it re-reads every referenced target
 * with one LIST per (cluster, namespace, kind) shared by all pipelines, then re-checks every
 * pipeline through the same queue that hints feed.
 */
import type { Scheduler } from '../hints/scheduler.js';
import { hintKeyString } from '../hints/types.js';
import type { IndexedTarget, ListScope, PipelineIndex } from '../index/pipeline-index.js';
import type { GatewayLogger } from '../log.js';
import type { TargetStore } from '../verify/target-store.js';
import type { Verifier } from '../verify/verifier.js';

/** About the shortest wait between two passes (it is jittered too), whatever the interval. */
const MIN_GAP_MS = 1000;

/** What one pass did, for logs, metrics and tests. */
export interface ResyncReport {
  scopes: number;
  targets: number;
  /** Targets found Unknown in this pass. */
  unknown: number;
  pipelines: number;
  durationMs: number;
}

/** What the resync needs. */
export interface ResyncDeps {
  index: PipelineIndex;
  verifier: Verifier;
  store: TargetStore;
  logger: GatewayLogger;
  scheduler: Scheduler;
  random: () => number;
  intervalMs: number;
  /** Fraction of the interval by which each period is randomly shortened or lengthened. */
  jitter: number;
  /** Re-resolves cluster credentials (GitopsCluster Secrets) before reading. */
  refreshClusters: () => Promise<void>;
  /** Queues a pipeline re-check. */
  request: (pipelineId: string) => void;
  onReport?: (report: ResyncReport) => void;
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
        this.deps.logger.error({ err }, 'resync pass failed');
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

  private async pass(): Promise<ResyncReport> {
    const { index, verifier, store, scheduler } = this.deps;
    const started = scheduler.now();
    await this.deps.refreshClusters();
    const byScope = groupByScope(index);
    const results = await Promise.all(
      [...byScope].map(([scope, targets]) => verifier.readScope(scope, targets)),
    );
    const readAt = scheduler.now();
    let unknown = 0;
    for (const statuses of results) {
      for (const [target, status] of statuses) {
        store.set(target.key, status, readAt);
        if (status.health === 'Unknown') unknown += 1;
      }
    }
    const referenced = new Set(
      index.ids().flatMap((id) => index.targetsOf(id).map((t) => hintKeyString(t.key))),
    );
    store.retain((key) => referenced.has(key));
    const ids = index.ids();
    for (const id of ids) this.deps.request(id);
    this.passes += 1;
    const report: ResyncReport = {
      scopes: byScope.size,
      targets: referenced.size,
      unknown,
      pipelines: ids.length,
      durationMs: scheduler.now() - started,
    };
    this.deps.onReport?.(report);
    this.deps.logger.info(report, 'resync pass complete');
    return report;
  }
}

/** Every referenced target grouped under the LIST scope that covers it. */
function groupByScope(index: PipelineIndex): Map<ListScope, IndexedTarget[]> {
  const scopes = index.listScopes();
  const scopeOf = new Map(
    scopes.map((s) => [scopeKey(s.cluster, s.group, s.kind, s.namespace), s]),
  );
  const out = new Map<ListScope, IndexedTarget[]>();
  const seen = new Set<string>();
  for (const id of index.ids()) {
    for (const t of index.targetsOf(id)) {
      const k = hintKeyString(t.key);
      if (seen.has(k)) continue;
      seen.add(k);
      const scope = scopeOf.get(scopeKey(t.key.cluster, t.key.group, t.key.kind, t.key.namespace));
      if (scope === undefined) continue;
      const list = out.get(scope) ?? [];
      list.push(t);
      out.set(scope, list);
    }
  }
  return out;
}

function scopeKey(cluster: string, group: string, kind: string, namespace: string): string {
  return `${cluster}|${group}|${kind}|${namespace}`;
}
