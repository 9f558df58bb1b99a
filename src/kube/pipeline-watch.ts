import {
  CustomObjectsApi,
  makeInformer,
  type Informer,
  type KubeConfig,
  type KubernetesListObject,
  type KubernetesObject,
} from '@kubernetes/client-node';
import { realScheduler, type Scheduler } from '../clock.js';
import type { KubeCalls } from './request-options.js';
import { PIPELINE } from './resources.js';
import type { KubeObject } from './types.js';

/** What the watcher reports; the index and the reconciler subscribe through this. */
export interface PipelineEventHandler {
  upsert(pipeline: KubeObject): void;
  remove(namespace: string, name: string): void;
  /** A watch failed; it restarts by itself after `retryInMs`. */
  error(message: string, retryInMs: number): void;
}

/**
 * Watches Pipelines in the management cluster (all namespaces, or each configured one) with
 * client-node informers, restarting a failed informer with capped exponential backoff.
 */
export class PipelineWatcher {
  private readonly informers: Informer<KubernetesObject>[] = [];
  private readonly pendingRestarts = new Set<() => void>();
  private readonly syncedInformers = new Set<Informer<KubernetesObject>>();
  private stopped = false;

  constructor(
    private readonly kubeConfig: KubeConfig,
    private readonly namespaces: readonly string[],
    private readonly handler: PipelineEventHandler,
    private readonly calls: KubeCalls,
    private readonly scheduler: Scheduler = realScheduler,
  ) {}

  /** Starts every informer; resolves once each has listed (or failed and scheduled a retry). */
  async start(): Promise<void> {
    const scopes = this.namespaces.length === 0 ? [undefined] : this.namespaces;
    await Promise.all(scopes.map((ns) => this.startOne(ns)));
  }

  /** True once every informer has completed an initial list. */
  synced(): boolean {
    return this.informers.length > 0 && this.syncedInformers.size === this.informers.length;
  }

  /** Stops all informers and pending restarts. */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const cancel of this.pendingRestarts) cancel();
    await Promise.all(this.informers.map((i) => i.stop()));
  }

  private async startOne(namespace: string | undefined): Promise<void> {
    const api = this.kubeConfig.makeApiClient(CustomObjectsApi);
    const path =
      namespace === undefined
        ? `/apis/${PIPELINE.group}/${PIPELINE.version}/${PIPELINE.plural}`
        : `/apis/${PIPELINE.group}/${PIPELINE.version}/namespaces/${namespace}/${PIPELINE.plural}`;
    const list = async (): Promise<KubernetesListObject<KubernetesObject>> => {
      const options = this.calls.options();
      const result: unknown =
        namespace === undefined
          ? await api.listClusterCustomObject({ ...PIPELINE }, options)
          : await api.listNamespacedCustomObject({ ...PIPELINE, namespace }, options);
      return result as KubernetesListObject<KubernetesObject>;
    };
    const informer = makeInformer(this.kubeConfig, path, list);
    this.informers.push(informer);
    const onObject = (obj: KubernetesObject) => {
      this.handler.upsert(withKind(obj));
    };
    informer.on('add', onObject);
    informer.on('update', onObject);
    informer.on('delete', (obj) => {
      this.handler.remove(obj.metadata?.namespace ?? '', obj.metadata?.name ?? '');
    });
    informer.on('connect', () => this.syncedInformers.add(informer));
    let failures = 0;
    informer.on('error', (err: unknown) => {
      this.syncedInformers.delete(informer);
      // stop() aborts the watch, which the informer reports as an error: not worth a restart.
      if (this.stopped) return;
      failures += 1;
      const retryIn = Math.min(30_000, 500 * 2 ** Math.min(failures, 6));
      this.handler.error(describe(err), retryIn);
      this.restartLater(informer, retryIn, () => (failures = 0));
    });
    try {
      await informer.start();
      this.syncedInformers.add(informer);
    } catch (err) {
      this.handler.error(describe(err), 1000);
      this.restartLater(informer, 1000, () => undefined);
    }
  }

  private restartLater(informer: Informer<KubernetesObject>, ms: number, onOk: () => void): void {
    if (this.stopped) return;
    const pending = this.scheduler.setTimer(ms, () => {
      this.pendingRestarts.delete(pending);
      if (this.stopped) return;
      informer.start().then(
        () => {
          this.syncedInformers.add(informer);
          onOk();
        },
        (err: unknown) => {
          this.handler.error(describe(err), ms);
          this.restartLater(informer, Math.min(30_000, ms * 2), onOk);
        },
      );
    });
    this.pendingRestarts.add(pending);
  }
}

function withKind(obj: KubernetesObject): KubeObject {
  return {
    ...obj,
    apiVersion: `${PIPELINE.group}/${PIPELINE.version}`,
    kind: 'Pipeline',
  } as KubeObject;
}

function describe(err: unknown): string {
  if (typeof err === 'object' && err !== null) {
    const code =
      (err as { code?: unknown; statusCode?: unknown }).statusCode ??
      (err as { code?: unknown }).code;
    if (typeof code === 'number' || typeof code === 'string')
      return `watch failed (${String(code)})`;
  }
  return 'watch failed';
}
