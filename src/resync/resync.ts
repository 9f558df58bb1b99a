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

/** Runs a full pass now and then every jittered interval until stopped. */
export class Resync {
  private cancel: (() => void) | undefined;
  private running: Promise<ResyncReport> | undefined;
  private stopped = false;
  private passes = 0;

  constructor(private readonly deps: ResyncDeps) {}

  /** Number of completed passes (readiness waits for the first). */
  get completedPasses(): number {
    return this.passes;
  }

  /** Starts the loop with an immediate pass. */
  start(): void {
    this.stopped = false;
    this.tick();
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
        if (this.stopped) return;
        const { intervalMs, jitter, random } = this.deps;
        const delay = Math.max(1000, intervalMs * (1 + jitter * (2 * random() - 1)));
        this.cancel = this.deps.scheduler.setTimer(delay, () => {
          this.tick();
        });
      });
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
